import { useState } from 'react';

/** Copies text to the clipboard; falls back to a hidden textarea where the Clipboard API is blocked. */
export function CopyButton({ text, label = 'Copy', ariaLabel }: { text: () => string; label?: string; ariaLabel?: string }) {
  const [done, setDone] = useState<'idle' | 'ok' | 'fail'>('idle');
  const copy = async () => {
    const value = text();
    try {
      await navigator.clipboard.writeText(value);
      setDone('ok');
    } catch {
      const area = document.createElement('textarea');
      area.value = value;
      area.setAttribute('readonly', '');
      area.style.position = 'fixed';
      area.style.opacity = '0';
      document.body.appendChild(area);
      area.select();
      const ok = document.execCommand('copy');
      area.remove();
      setDone(ok ? 'ok' : 'fail');
    }
    setTimeout(() => setDone('idle'), 1500);
  };
  return (
    <button type="button" className="btn btn-small btn-copy" onClick={copy} aria-label={done === 'idle' ? ariaLabel : undefined}>
      {done === 'ok' ? 'Copied' : done === 'fail' ? 'Copy failed' : label}
    </button>
  );
}
