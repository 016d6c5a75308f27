/**
 * Text that, when it does not fit, loses its middle rather than its end: ids share their prefix
 * (kind and time) and differ at the end, so `evt_0mwxw8k…a93185` stays telling apart where
 * `evt_0mwxw8k0905…` does not. The whole text is the tooltip and what a selection copies.
 */
import './MiddleEllipsis.css';

export function MiddleEllipsis({ text, tail = 8, className }: { text: string; tail?: number; className?: string }) {
  const cut = text.length > tail + 4 ? text.length - tail : text.length;
  return (
    <span className={`mid-ellipsis${className ? ` ${className}` : ''}`} title={text}>
      <span className="mid-head">{text.slice(0, cut)}</span>
      {cut < text.length && <span className="mid-tail">{text.slice(cut)}</span>}
    </span>
  );
}
