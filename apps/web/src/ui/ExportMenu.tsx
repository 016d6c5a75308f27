/**
 * "Export" on a list's header: the list as CSV or JSON Lines for the filters the screen shows.
 * Plain links to the export route, so the browser streams the file to disk with the session
 * cookie; nothing passes through the page's memory.
 */
import { useEffect, useRef, useState } from 'react';
import { exportHref, type ExportFormat, type ExportListName } from '@switchboard/contract/export';
import './ExportMenu.css';

const FORMAT_LABELS: Record<ExportFormat, string> = { csv: 'CSV', jsonl: 'JSON Lines' };

/** `params` are the list method's params for the current filters (without limit and cursor). */
export function ExportMenu({ list, params }: { list: ExportListName; params: object }) {
  const menu = useRef<HTMLDetailsElement>(null);
  const [open, setOpen] = useState(false);

  // A menu, not a disclosure: a click elsewhere or Escape closes it, as other menus do. The
  // listeners ask the element whether it is open: its toggle event (and so `open`) comes a task
  // after the browser opens it, and an Escape pressed in between must still close it.
  useEffect(() => {
    const close = () => {
      if (menu.current) menu.current.open = false;
      setOpen(false);
    };
    const onPointer = (e: PointerEvent) => {
      if (menu.current?.open && !menu.current.contains(e.target as Node)) close();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !menu.current?.open) return;
      close();
      menu.current?.querySelector('summary')?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, []);

  return (
    <details className="export-menu" ref={menu} open={open} onToggle={(e) => setOpen(e.currentTarget.open)} data-testid="export-menu">
      <summary className="btn btn-small">Export</summary>
      <ul className="export-menu-list" aria-label="Export format">
        {(Object.keys(FORMAT_LABELS) as ExportFormat[]).map((format) => (
          <li key={format}>
            <a href={exportHref(list, format, params)} download onClick={() => setOpen(false)} title="Everything that matches the current filters, not only the loaded rows">
              {FORMAT_LABELS[format]}
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}
