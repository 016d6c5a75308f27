/**
 * A JSON value as a collapsible tree of plain text (React text nodes only, never HTML), built so a
 * 1 MB payload opens at once: children render only when expanded, long containers and strings
 * reveal in slices, and the raw document can be copied or downloaded instead.
 */
import { useMemo, useState } from 'react';
import { CopyButton } from './CopyButton';
import './JsonTree.css';

/** Containers render this many children per "show more". */
const CHILD_SLICE = 100;
/** Strings longer than this are cut, with a control to reveal more. */
const STRING_PREVIEW = 300;
const STRING_SLICE = 20_000;
/** Payloads under this size open two levels deep; bigger ones show the top level only. */
const SMALL_PAYLOAD_BYTES = 16 * 1024;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function JsonTree({ value, fileName = 'payload.json' }: { value: unknown; fileName?: string }) {
  const raw = useMemo(() => JSON.stringify(value, null, 2) ?? 'null', [value]);
  // The payload's size as stored and sent (compact JSON, UTF-8), not the pretty-printed copy's.
  const bytes = useMemo(() => new Blob([JSON.stringify(value) ?? 'null']).size, [value]);
  const openDepth = bytes <= SMALL_PAYLOAD_BYTES ? 2 : 1;
  const [generation, setGeneration] = useState(0);

  const download = () => {
    const url = URL.createObjectURL(new Blob([raw], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = fileName;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  return (
    <div className="json">
      <div className="json-toolbar">
        <span className="muted small">{formatBytes(bytes)}</span>
        <button type="button" className="btn btn-small" onClick={() => setGeneration((g) => g + 1)}>
          Collapse
        </button>
        <CopyButton text={() => raw} label="Copy JSON" />
        <button type="button" className="btn btn-small" onClick={download}>
          Download raw
        </button>
      </div>
      <div className="json-tree" data-testid="json-tree">
        <JsonNode key={generation} name={null} value={value as Json} depth={0} openDepth={openDepth} />
      </div>
    </div>
  );
}

function JsonNode({ name, value, depth, openDepth }: { name: string | null; value: Json; depth: number; openDepth: number }) {
  const isContainer = value !== null && typeof value === 'object';
  const [open, setOpen] = useState(depth < openDepth);
  const [shown, setShown] = useState(CHILD_SLICE);
  const label = name === null ? null : <span className="json-key">{name}: </span>;

  if (!isContainer) {
    return (
      <div className="json-row">
        <span className="json-spacer" aria-hidden="true" />
        {label}
        <JsonScalar value={value} />
      </div>
    );
  }

  const isArray = Array.isArray(value);
  const entries: [string, Json][] = isArray ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const summary = isArray ? `[${entries.length} item${entries.length === 1 ? '' : 's'}]` : `{${entries.length} key${entries.length === 1 ? '' : 's'}}`;

  return (
    <div className="json-node">
      <div className="json-row">
        <button type="button" className="json-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)} disabled={entries.length === 0}>
          <span aria-hidden="true">{open ? '▾' : '▸'}</span>
          <span className="visually-hidden">{open ? 'Collapse' : 'Expand'} </span>
          {label ?? <span className="json-key">{isArray ? 'array' : 'object'} </span>}
          <span className="json-summary">{summary}</span>
        </button>
        {open && depth > 0 && <CopyButton text={() => JSON.stringify(value, null, 2)} label="Copy" />}
      </div>
      {open && (
        <div className="json-children">
          {entries.slice(0, shown).map(([k, v]) => (
            <JsonNode key={k} name={k} value={v} depth={depth + 1} openDepth={openDepth} />
          ))}
          {entries.length > shown && (
            <button type="button" className="btn btn-small json-more" onClick={() => setShown((s) => s + CHILD_SLICE)}>
              Show {Math.min(CHILD_SLICE, entries.length - shown)} more ({entries.length - shown} hidden)
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function JsonScalar({ value }: { value: Exclude<Json, Json[] | { [key: string]: Json }> }) {
  const [limit, setLimit] = useState(STRING_PREVIEW);
  if (typeof value === 'string') {
    const cut = value.length > limit;
    return (
      <span className="json-string">
        “{cut ? value.slice(0, limit) : value}
        {cut ? '…' : ''}”
        {cut && (
          <button type="button" className="btn btn-small json-more" onClick={() => setLimit((l) => (l === STRING_PREVIEW ? STRING_SLICE : l + STRING_SLICE))}>
            Show more ({(value.length - limit).toLocaleString()} characters hidden)
          </button>
        )}
      </span>
    );
  }
  if (value === null) return <span className="json-null">null</span>;
  if (typeof value === 'number') return <span className="json-number">{String(value)}</span>;
  return <span className="json-bool">{String(value)}</span>;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1000 * 1000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1000 / 1000).toFixed(2)} MB (${bytes.toLocaleString('en')} bytes)`;
}
