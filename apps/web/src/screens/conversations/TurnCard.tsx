/**
 * One turn, readable: what triggered it, how long it took, whether the output parsed, the
 * conversation blocks in order (tool calls shown with their arguments and results), and the raw
 * request and response payloads behind collapsed sections. Everything renders as text.
 */
import { useState, type ReactNode } from 'react';
import type { Turn } from '@switchboard/contract';
import { Link } from 'react-router';
import { paths } from '../../paths';
import { JsonTree, formatBytes } from '../../ui/JsonTree';
import { formatExact } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import './TurnCard.css';

type ToolCall = NonNullable<Turn['tool_calls']>[number];
type Block = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function TurnCard({ turn, highlighted }: { turn: Turn; highlighted: boolean }) {
  const calls = turn.tool_calls ?? [];
  const blocks = turn.turn_blocks ?? [];
  const callsById = new Map(calls.map((c) => [c.tool_call_id, c]));
  const shownInBlocks = new Set(blocks.filter((b) => b.type === 'tool_use').map((b) => str(b.tool_call_id)));
  const unplaced = calls.filter((c) => !shownInBlocks.has(c.tool_call_id));

  return (
    <article
      className={`turn${turn.parse_ok ? '' : ' turn-failed'}${highlighted ? ' is-highlighted' : ''}`}
      aria-labelledby={`turn-${turn.turn_id}`}
      data-testid="turn"
      data-parse-ok={turn.parse_ok ? 'true' : 'false'}
    >
      <header className="turn-header">
        <h2 id={`turn-${turn.turn_id}`} className="turn-title">
          Turn {turn.turn_index}
        </h2>
        <StatusBadge value={turn.parse_ok ? 'parsed' : 'parse failed'} tone={turn.parse_ok ? 'ok' : 'bad'} />
        <span className="turn-latency">{turn.latency_ms.toLocaleString()} ms</span>
        <span className="small">
          trigger{' '}
          <Link to={paths.event(turn.trigger_event_id)} className="mono" data-testid="trigger-event-link">
            {turn.trigger_event_type}
          </Link>
        </span>
        {turn.started_at && (
          <time className="muted small" dateTime={turn.started_at} title={formatExact(turn.started_at)}>
            {new Date(turn.started_at).toLocaleTimeString()}
          </time>
        )}
        <span className="muted small mono turn-id">{turn.turn_id}</span>
      </header>
      {turn.error && (
        <p className="turn-error error-text" data-testid="turn-error">
          {turn.error}
        </p>
      )}
      {blocks.length > 0 && (
        <ol className="blocks" aria-label={`Turn ${turn.turn_index} blocks`}>
          {blocks.map((b, i) => (
            <TurnBlock key={i} block={b} call={callsById.get(str(b.tool_call_id) ?? '')} />
          ))}
        </ol>
      )}
      {unplaced.length > 0 && (
        <div className="tool-calls">
          {unplaced.map((c) => (
            <ToolCallCard key={c.tool_call_id} call={c} />
          ))}
        </div>
      )}
      <div className="turn-payloads">
        {turn.request_payload && (
          <Collapsible label="Request payload">
            <JsonTree value={turn.request_payload} fileName={`${turn.turn_id}-request.json`} />
          </Collapsible>
        )}
        {turn.response_payload && (
          <Collapsible label="Response payload">
            <JsonTree value={turn.response_payload} fileName={`${turn.turn_id}-response.json`} />
          </Collapsible>
        )}
      </div>
    </article>
  );
}

function TurnBlock({ block, call }: { block: Block; call: ToolCall | undefined }) {
  const type = str(block.type) ?? 'block';
  if (type === 'tool_use') {
    const fallback: ToolCall = {
      tool_call_id: str(block.tool_call_id) ?? '',
      tool: str(block.tool) ?? 'tool',
      arguments: (block.arguments as Record<string, unknown>) ?? {},
    };
    return (
      <li className="block block-tool">
        <ToolCallCard call={call ?? fallback} />
      </li>
    );
  }
  // The result is part of the tool call card above it.
  if (type === 'tool_result' && call) return null;
  if (type === 'error') {
    return (
      <li className="block block-error">
        <span className="block-label">error{block.code ? ` · ${String(block.code)}` : ''}</span>
        <p className="error-text">{str(block.message) ?? JSON.stringify(block)}</p>
      </li>
    );
  }
  const text = str(block.text);
  const label = type === 'input' ? `input${block.role ? ` · ${String(block.role)}` : ''}` : type === 'text' ? 'model output' : type;
  return (
    <li className={`block block-${type === 'input' ? 'input' : type === 'text' ? 'output' : 'other'}`}>
      <span className="block-label">{label}</span>
      {text !== undefined ? <BlockText text={text} /> : <JsonTree value={block} fileName="block.json" />}
    </li>
  );
}

function ToolCallCard({ call }: { call: ToolCall }) {
  return (
    <div className={`tool-call${call.error ? ' tool-call-failed' : ''}`} data-testid="tool-call">
      <div className="tool-call-head">
        <span className="block-label">tool call</span>
        <code className="tool-name">{call.tool}</code>
        {call.latency_ms !== undefined && <span className="muted small">{call.latency_ms} ms</span>}
        {call.error ? <StatusBadge value="failed" tone="bad" /> : call.result !== undefined ? <StatusBadge value="returned" tone="ok" /> : null}
      </div>
      <div className="tool-call-io">
        <div>
          <span className="small muted">Arguments</span>
          <pre className="code-block">{JSON.stringify(call.arguments, null, 2)}</pre>
        </div>
        <div>
          <span className="small muted">{call.error ? 'Error' : 'Result'}</span>
          {call.error ? (
            <p className="error-text">{call.error}</p>
          ) : (
            <pre className="code-block">{call.result === undefined ? '(no result)' : JSON.stringify(call.result, null, 2)}</pre>
          )}
        </div>
      </div>
    </div>
  );
}

/** Content renders only while open, so a long transcript does not build every payload tree up front. */
function Collapsible({ label, children }: { label: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="collapsible">
      <button type="button" className="btn btn-small btn-quiet collapsible-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> {label}
      </button>
      {open && <div className="collapsible-body">{children}</div>}
    </div>
  );
}

/** Text shown inline up to this many characters; longer text (a 1 MB input) waits to be asked for. */
const INLINE_TEXT_LIMIT = 20_000;

function BlockText({ text }: { text: string }) {
  const [shown, setShown] = useState(false);
  if (text.length <= INLINE_TEXT_LIMIT || shown) return <p className="block-text">{text}</p>;
  return (
    <div className="block-text-gated" data-testid="large-text">
      <p className="block-text">{text.slice(0, 2_000)}…</p>
      <p className="muted small">
        {formatBytes(new Blob([text]).size)} of text; the first 2,000 characters are shown.{' '}
        <button type="button" className="btn btn-small" onClick={() => setShown(true)}>
          Show all
        </button>
      </p>
    </div>
  );
}
