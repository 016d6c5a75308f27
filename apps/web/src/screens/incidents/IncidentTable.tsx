import { Fragment } from 'react';
import type { Incident } from '@switchboard/contract';
import { Link } from 'react-router';
import { RelativeTime } from '../../ui/RelativeTime';
import { Sparkline, sparklineLabel } from '../../ui/Sparkline';
import { StatusBadge } from '../../ui/StatusBadge';
import { withParams } from '../../url-state';
import './IncidentTable.css';

import { causeLabel, stateLabel, stateTone, trendLabel, type SortChoice as Sort } from './incident-state';

/**
 * The incident list. Each row is told apart by component, error code and cause: on a wide screen
 * in columns of their own, on a narrow one stacked in the component's cell (with the level over the
 * state, and the last seen time under the count), so no row reads as another.
 */
export function IncidentTable({
  incidents,
  selectedId,
  sort,
  windowHours,
  params,
  onSelect,
  onSort,
}: {
  incidents: Incident[];
  selectedId: string | undefined;
  sort: Sort;
  windowHours: number;
  params: URLSearchParams;
  onSelect: (id: string) => void;
  onSort: (sort: Sort) => void;
}) {
  const sortHeader = (key: Sort, label: string, className?: string) => (
    <th scope="col" aria-sort={sort === key ? 'descending' : 'none'} className={className}>
      <button type="button" className="sort-button" onClick={() => onSort(key)}>
        {label}
        <span aria-hidden="true">{sort === key ? '▼' : '↕'}</span>
        <span className="visually-hidden">{sort === key ? '(sorted, highest first)' : '(sort by this column)'}</span>
      </button>
    </th>
  );
  return (
    <div className="table-scroll">
      <table className="data incident-table" aria-label="Incidents" aria-describedby="incident-keys">
        <colgroup>
          <col className="c-level hide-narrow hide-with-detail" />
          <col className="c-state" />
          <col className="c-component" />
          <col className="c-code hide-narrow" />
          <col className="c-count" />
          <col className="c-last hide-narrow" />
          <col className="c-first hide-narrow hide-with-detail" />
          <col className="c-spark hide-narrow hide-with-detail" />
          <col className="c-sample hide-narrow hide-with-detail" />
        </colgroup>
        <thead>
          <tr>
            <th scope="col" className="hide-narrow hide-with-detail">
              Level
            </th>
            <th scope="col">State</th>
            <th scope="col">Component</th>
            <th scope="col" className="hide-narrow">
              Error code
            </th>
            {sortHeader('count', 'Count', 'num')}
            {sortHeader('last_seen', 'Last seen', 'hide-narrow')}
            <th scope="col" className="hide-narrow hide-with-detail">
              First seen
            </th>
            <th scope="col" className="hide-narrow hide-with-detail">
              Occurrences
            </th>
            <th scope="col" className="hide-narrow hide-with-detail">
              Sample message
            </th>
          </tr>
        </thead>
        <tbody>
          {incidents.map((i) => {
            const cause = causeLabel(i);
            return (
              <tr
                key={i.incident_id}
                aria-selected={i.incident_id === selectedId}
                onClick={() => onSelect(i.incident_id)}
                data-testid="incident-row"
                data-incident-id={i.incident_id}
              >
                <td className="hide-narrow hide-with-detail">
                  <StatusBadge value={i.level} />
                </td>
                <td className="incident-stack">
                  <span className="incident-line show-narrow show-with-detail">
                    <StatusBadge value={i.level} />
                  </span>
                  <span className="incident-line" data-testid="incident-state">
                    <StatusBadge value={stateLabel(i)} tone={stateTone(i)} />
                  </span>
                </td>
                <td className="incident-stack" title={[i.component, i.error_code, cause].filter(Boolean).join(' · ')}>
                  <Link className="row-link incident-line" to={withParams(params, { selected: i.incident_id })} onClick={(e) => e.stopPropagation()}>
                    <Breakable text={i.component} />
                  </Link>
                  <span className="incident-line mono small show-narrow" data-testid="incident-code">
                    {i.error_code ? <Breakable text={i.error_code} /> : '—'}
                  </span>
                  {cause && (
                    <span className="incident-line small muted show-narrow" data-testid="incident-cause">
                      <Breakable text={cause} />
                    </span>
                  )}
                </td>
                <td className="hide-narrow incident-stack" title={[i.error_code, cause].filter(Boolean).join(' · ')}>
                  <span className="incident-line mono">{i.error_code ? <Breakable text={i.error_code} /> : <span className="muted">—</span>}</span>
                  {cause && (
                    <span className="incident-line small muted">
                      <Breakable text={cause} />
                    </span>
                  )}
                </td>
                <td className="num incident-stack">
                  <span className="incident-line">{i.count.toLocaleString()}</span>
                  <span className="incident-line small muted show-narrow">
                    <RelativeTime iso={i.last_seen} />
                  </span>
                </td>
                <td className="hide-narrow">
                  <RelativeTime iso={i.last_seen} />
                </td>
                <td className="hide-narrow hide-with-detail">
                  <RelativeTime iso={i.first_seen} />
                </td>
                <td className="hide-narrow hide-with-detail">
                  {i.histogram ? <Sparkline values={i.histogram} label={sparklineLabel(i.histogram, windowHours)} /> : <span className="muted">—</span>}
                  {sort === 'trend' && <div className="small muted">{trendLabel(i.trend)}</div>}
                </td>
                <td className="hide-narrow hide-with-detail sample" title={i.sample_message}>
                  {i.sample_message}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p id="incident-keys" className="visually-hidden">
        Keys: j and k move between incidents, Enter opens one, a acknowledges and e resolves the open incident, Escape closes it.
      </p>
    </div>
  );
}

/** Text that may wrap after its separators (MODEL_OUTPUT_ / INVALID, mcp. / payments), not mid-word. */
function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[._-])/);
  return (
    <>
      {parts.map((p, n) => (
        <Fragment key={n}>
          {p}
          {n < parts.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}
