/**
 * One reset owner's section (plan, quiescence, cleanup, containers) as readable text. The contract
 * leaves the inner shapes open, so this renders any shape: counts as tables, lists as chips or
 * rows, the rest as key/value pairs, and keeps the raw JSON one click away.
 */
import { useState } from 'react';
import { JsonTree } from '../../ui/JsonTree';
import { asCounts } from './nuke-format';
import './OwnerSection.css';

const LIST_PREVIEW = 8;

function label(key: string): string {
  return key.replace(/_/g, ' ');
}

export function OwnerSection({ title, section, testId }: { title: string; section: Record<string, unknown>; testId?: string }) {
  const [raw, setRaw] = useState(false);
  return (
    <section className="owner" data-testid={testId} aria-label={title}>
      <div className="owner-head">
        <h4>{title}</h4>
        <button type="button" className="btn btn-small btn-quiet" aria-expanded={raw} onClick={() => setRaw((r) => !r)}>
          {raw ? 'Hide raw' : 'Raw'}
        </button>
      </div>
      {raw ? <JsonTree value={section} fileName={`${title.toLowerCase()}.json`} /> : <SectionValue value={section} />}
    </section>
  );
}

function SectionValue({ value }: { value: Record<string, unknown> }) {
  const entries = Object.entries(value);
  if (entries.length === 0) return <p className="muted small">Nothing reported.</p>;
  return (
    <dl className="kv owner-kv">
      {entries.map(([k, v]) => (
        <Entry key={k} name={k} value={v} />
      ))}
    </dl>
  );
}

/** Structured values (counts, lists of records, nested sections) sit under their label, full width. */
function isBlock(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  if (!Array.isArray(value)) return true;
  return value.some((v) => v && typeof v === 'object');
}

function Entry({ name, value }: { name: string; value: unknown }) {
  const block = isBlock(value);
  return (
    <>
      <dt className={block ? 'kv-block' : undefined}>{label(name)}</dt>
      <dd className={block ? 'kv-block' : undefined}>
        <Value value={value} />
      </dd>
    </>
  );
}

function Value({ value }: { value: unknown }) {
  const [shown, setShown] = useState(LIST_PREVIEW);
  if (value === null || value === undefined) return <span className="muted">—</span>;
  if (typeof value === 'boolean') return <span>{value ? 'yes' : 'no'}</span>;
  if (typeof value === 'number') return <span className="num">{value.toLocaleString()}</span>;
  if (typeof value === 'string') return <span className="mono wrap">{value}</span>;
  const counts = asCounts(value);
  if (counts) {
    return (
      <table className="values counts">
        <tbody>
          {Object.entries(counts).map(([k, n]) => (
            <tr key={k}>
              <th scope="row">{label(k)}</th>
              <td className="num">{n.toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">none</span>;
    if (value.every((v) => typeof v === 'string' || typeof v === 'number')) {
      return (
        <ul className="chips">
          {value.slice(0, shown).map((v, i) => (
            <li key={i} className="chip mono">
              {String(v)}
            </li>
          ))}
          {value.length > shown && (
            <li>
              <button type="button" className="btn btn-small" onClick={() => setShown(value.length)}>
                Show all {value.length}
              </button>
            </li>
          )}
        </ul>
      );
    }
    return (
      <ul className="owner-rows">
        {value.slice(0, shown).map((v, i) => (
          <li key={i} className="mono small">
            {v && typeof v === 'object'
              ? Object.entries(v as Record<string, unknown>)
                  .map(([k, x]) => `${k}: ${typeof x === 'string' ? x : JSON.stringify(x)}`)
                  .join(' · ')
              : String(v)}
          </li>
        ))}
        {value.length > shown && (
          <li>
            <button type="button" className="btn btn-small" onClick={() => setShown(value.length)}>
              Show all {value.length}
            </button>
          </li>
        )}
      </ul>
    );
  }
  if (typeof value === 'object') {
    return (
      <dl className="kv owner-kv nested">
        {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
          <Entry key={k} name={k} value={v} />
        ))}
      </dl>
    );
  }
  return <span>{String(value)}</span>;
}
