/**
 * The sessions by client host, busiest first: "120 sessions from 10.0.0.5, 1,900 req/s". Each
 * host is a button (Tab and Enter, or ↑/↓ between them) that filters the table to that host;
 * the herd's hosts are marked.
 */
import { useRef, type KeyboardEvent } from 'react';
import { plural } from '../../ui/format';
import { rateText, type HostGroup } from './rates';

export function HostGroups({
  groups,
  herdHosts,
  activeHost,
  onPick,
}: {
  groups: readonly HostGroup[];
  herdHosts: ReadonlySet<string>;
  activeHost: string | null;
  onPick: (host: string) => void;
}) {
  const listRef = useRef<HTMLUListElement>(null);
  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const buttons = [...(listRef.current?.querySelectorAll<HTMLButtonElement>('button') ?? [])];
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[Math.min(buttons.length - 1, Math.max(0, i + (e.key === 'ArrowDown' ? 1 : -1)))];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };
  if (groups.length === 0) return null;
  return (
    <ul ref={listRef} className="hostgroups" aria-label="Sessions by client host" onKeyDown={onKeyDown}>
      {groups.map((g) => {
        const label = g.host === '' ? 'no connection' : g.host;
        const rate = g.requestsPerSecond === null ? 'no rate yet' : `${rateText(g.requestsPerSecond)} req/s`;
        return (
          <li key={g.host}>
            <button
              type="button"
              className={`hostgroup${activeHost === g.host ? ' is-active' : ''}`}
              aria-pressed={activeHost === g.host}
              title={activeHost === g.host ? 'Show every host again' : `Show only the sessions from ${label}`}
              onClick={() => onPick(g.host)}
            >
              <span className="hostgroup__count">{plural(g.sessions, 'session')}</span>{' '}
              {g.host === '' ? (
                'with no connection'
              ) : (
                <>
                  from <span className="mono hostgroup__host">{label}</span>
                </>
              )}
              , <span className="hostgroup__rate">{rate}</span>
              {g.withoutRate > 0 && g.requestsPerSecond !== null && <span className="muted"> ({g.withoutRate} without a rate yet)</span>}
              {herdHosts.has(g.host) && (
                <>
                  {' '}
                  <span className="badge tone-degraded hostgroup__herd">herd</span>
                </>
              )}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
