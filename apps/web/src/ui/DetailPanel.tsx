/**
 * The side panel that shows one record. On narrow screens it covers the list; Escape or the close
 * button returns to the list, and focus moves to the panel heading when it opens.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import './DetailPanel.css';

export function DetailPanel({ title, onClose, children, label }: { title: ReactNode; onClose: () => void; children: ReactNode; label: string }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus({ preventScroll: true });
  }, [label]);
  return (
    <aside
      className="detail"
      aria-label={label}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <div className="detail-header">
        <h2 ref={headingRef} tabIndex={-1}>
          {title}
        </h2>
        <button type="button" className="btn btn-small" onClick={onClose} aria-label="Close details">
          Close
        </button>
      </div>
      <div className="detail-body">{children}</div>
    </aside>
  );
}
