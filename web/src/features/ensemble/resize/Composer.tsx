/**
 * Planning a resize (admins): the membership as `/zookeeper/config` holds it, each member with its
 * role and a remove switch, the `server.N=` lines of members to add (the first one suggested from
 * the members' own pattern), and the plan computed as the keys are typed with the server's own
 * planner: the steps in ZooKeeper's syntax, the size before and after, the refusals and the risks.
 * "Plan" stores it on the server, which plans again from the configuration it reads then and runs
 * the preflight; nothing changes on the ensemble until it is started.
 */
import { useMemo, useRef, useState } from 'react';
import {
  nextFreeId,
  parseAddLine,
  parseDynamicConfig,
  planReconfig,
  suggestJoinerLine,
  type ConfigMember,
  type EnsembleHealth,
  type ReconfigWorkflow,
} from '@keeper/shared';
import { formatAbsolute, formatClock } from '../../../lib/time';
import { Callout } from '../../../ui/Callout';
import type { Tone } from '../../../ui/tone';
import { useSubmit } from '../../../ui/useSubmit';
import { PlanPreview } from './PlanPreview';
import { createReconfig, resizeErrorText, type ConfigRead } from './resizeApi';

type Role = 'participant' | 'observer';

/** A member's polled state as the ensemble view colours it: serving green, out of service red, anything else grey. */
function stateTone(state: string): Tone {
  if (state === 'leader' || state === 'follower' || state === 'observer' || state === 'standalone') return 'live';
  return state === 'down' || state === 'unreachable' || state === 'not-serving' ? 'lost' : 'stale';
}

interface AddRow {
  key: number;
  line: string;
}

/** The member Keeper's session is on, by its client address. */
export function memberOfAddress(members: readonly ConfigMember[], address: string | null | undefined): number | null {
  if (!address) return null;
  const cut = address.lastIndexOf(':');
  const host = address.slice(0, cut).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(cut + 1));
  const match = members.filter((m) => m.clientPort === port && (m.clientHost === null || m.clientHost === host || m.host === host));
  return match.length === 1 ? match[0]!.id : null;
}

export function Composer({
  ensemble,
  config,
  health,
  sessionMember,
  live,
  onPlanned,
  onReread,
}: {
  ensemble: string;
  config: ConfigRead;
  health: EnsembleHealth | undefined;
  sessionMember: string | null;
  live: boolean;
  onPlanned: (wf: ReconfigWorkflow) => void;
  onReread: () => void;
}) {
  const parsed = useMemo(() => parseDynamicConfig(config.text), [config.text]);
  const [adds, setAdds] = useState<AddRow[]>([]);
  const [removed, setRemoved] = useState<ReadonlySet<number>>(new Set());
  const [roles, setRoles] = useState<ReadonlyMap<number, Role>>(new Map());
  const nextKey = useRef(1);
  const addInputs = useRef(new Map<number, HTMLInputElement>());
  /** The row just added, focused once its input mounts. */
  const focusOnMount = useRef<number | null>(null);
  const { busy, error, submit } = useSubmit(resizeErrorText);

  const leaderId = health?.members.find((m) => m.state === 'leader')?.id ?? null;
  const keeperMember = memberOfAddress(parsed.members, sessionMember);
  const change = useMemo(
    () => ({
      add: adds.map((a) => a.line.trim()).filter((l) => l !== ''),
      remove: [...removed].map(String),
      roles: Object.fromEntries([...roles].map(([id, role]) => [String(id), role])),
    }),
    [adds, removed, roles],
  );
  const touched = change.add.length + change.remove.length + Object.keys(change.roles).length > 0;
  const plan = useMemo(
    () => (touched ? planReconfig({ configText: config.text, change, leaderId, connectedMemberId: keeperMember }) : null),
    [touched, config.text, change, leaderId, keeperMember],
  );

  const addMember = () => {
    const taken = adds.flatMap((a) => {
      const p = parseAddLine(a.line);
      return p.ok ? [p.member.id] : [];
    });
    const key = nextKey.current++;
    setAdds((rows) => [...rows, { key, line: suggestJoinerLine(parsed.members, nextFreeId(parsed.members, taken)) }]);
    // Focused as it is rendered (its ref, below), so the suggestion can be edited at once: at
    // commit, not on a later frame that a slow machine or a test may not have reached.
    focusOnMount.current = key;
  };
  const setRole = (id: number, current: Role, wanted: Role) =>
    setRoles((map) => {
      const next = new Map(map);
      if (wanted === current) next.delete(id);
      else next.set(id, wanted);
      return next;
    });
  const toggleRemove = (id: number) =>
    setRemoved((set) => {
      const next = new Set(set);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const reset = () => {
    setAdds([]);
    setRemoved(new Set());
    setRoles(new Map());
  };
  const ready = plan?.ok === true && live && !busy;
  const send = () => submit(() => createReconfig(ensemble, change), onPlanned);

  return (
    <form
      className="resize-panel resize-composer"
      aria-label="Plan a resize"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) send();
      }}
    >
      <h2 className="section-title">Plan a resize</h2>
      <p className="resize-config-meta muted">
        From <span className="mono">/zookeeper/config</span>
        {parsed.version !== null && (
          <>
            {' '}
            version <span className="mono">{parsed.version}</span>
          </>
        )}
        , changed{' '}
        <time dateTime={new Date(config.mtime).toISOString()} title={formatAbsolute(config.mtime)}>
          {formatClock(config.mtime)}
        </time>
        , read{' '}
        <time dateTime={new Date(config.readAt).toISOString()} title={formatAbsolute(config.readAt)}>
          {formatClock(config.readAt)}
        </time>
        .{' '}
        <button type="button" className="btn btn--small" onClick={onReread}>
          Read again
        </button>
      </p>
      {parsed.version === null && (
        <Callout tone="degraded" role="note">
          <strong>No dynamic configuration</strong>
          <p>
            /zookeeper/config has no version line: this ensemble cannot be resized at run time (ZooKeeper 3.5+ with reconfigEnabled=true and a dynamic config
            file).
          </p>
        </Callout>
      )}

      <table className="data-table resize-members" aria-label="Members now">
        <thead>
          <tr>
            <th scope="col">id</th>
            <th scope="col">server line</th>
            <th scope="col">now</th>
            <th scope="col">role</th>
            <th scope="col">remove</th>
          </tr>
        </thead>
        <tbody>
          {parsed.members.map((m) => {
            const state = health?.members.find((h) => h.id === m.id)?.state ?? null;
            const role = roles.get(m.id) ?? m.role;
            const gone = removed.has(m.id);
            return (
              <tr key={m.id} className={gone ? 'is-removed' : roles.has(m.id) ? 'is-changed' : undefined}>
                <td className="mono">{m.id}</td>
                <td className="mono resize-members__line">
                  server.{m.id}={m.value}
                </td>
                <td className="resize-members__now">
                  {state === null ? <span className="muted">not polled</span> : <span className={`status tone-${stateTone(state)}`}>{state}</span>}
                  {keeperMember === m.id && <span className="chip">Keeper’s session</span>}
                </td>
                <td>
                  <select
                    className="input"
                    aria-label={`Role of member ${m.id}`}
                    value={role}
                    disabled={gone}
                    onChange={(e) => setRole(m.id, m.role, e.target.value as Role)}
                  >
                    <option value="participant">voter</option>
                    <option value="observer">observer</option>
                  </select>
                </td>
                <td>
                  <label className="resize-remove">
                    <input type="checkbox" checked={gone} onChange={() => toggleRemove(m.id)} aria-label={`Remove member ${m.id}`} />
                    <span aria-hidden="true">remove</span>
                  </label>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>

      <div className="resize-adds">
        {adds.map((row) => {
          const p = row.line.trim() === '' ? null : parseAddLine(row.line);
          return (
            <div key={row.key} className="resize-add">
              <label className="visually-hidden" htmlFor={`resize-add-${row.key}`}>
                Member to add, as a server line
              </label>
              <input
                id={`resize-add-${row.key}`}
                ref={(el) => {
                  if (el) addInputs.current.set(row.key, el);
                  else addInputs.current.delete(row.key);
                  if (el && focusOnMount.current === row.key) {
                    focusOnMount.current = null;
                    el.focus();
                  }
                }}
                className="input mono"
                spellCheck="false"
                autoComplete="off"
                value={row.line}
                aria-invalid={p !== null && !p.ok}
                aria-describedby={`resize-add-${row.key}-note`}
                onChange={(e) => setAdds((rows) => rows.map((r) => (r.key === row.key ? { ...r, line: e.target.value } : r)))}
              />
              <button
                type="button"
                className="btn btn--small"
                aria-label={`Do not add ${p?.ok ? `member ${p.member.id}` : 'this member'}`}
                onClick={() => setAdds((rows) => rows.filter((r) => r.key !== row.key))}
              >
                Drop
              </button>
              <span id={`resize-add-${row.key}-note`} className={p && !p.ok ? 'field__error' : 'field__hint'}>
                {p === null
                  ? 'server.<id>=<host>:<quorumPort>:<electionPort>:participant|observer;<clientHost>:<clientPort>'
                  : p.ok
                    ? `member ${p.member.id}, ${p.member.role === 'participant' ? 'a voter' : 'an observer'}, clients at ${p.member.clientHost ?? p.member.host}:${p.member.clientPort}`
                    : p.reason}
              </span>
            </div>
          );
        })}
        <div className="resize-adds__actions">
          <button type="button" className="btn btn--outline btn--small" onClick={addMember} disabled={parsed.version === null}>
            + Add a member
          </button>
          {touched && (
            <button type="button" className="btn btn--small" onClick={reset}>
              Clear the change
            </button>
          )}
        </div>
      </div>

      {plan === null ? (
        <p className="note">Add a member, remove one or change a role: the plan appears here, in ZooKeeper’s own syntax.</p>
      ) : plan.ok ? (
        <PlanPreview
          sizeSentence={plan.sizeSentence}
          before={plan.before}
          after={plan.after}
          steps={plan.steps.map((s) => ({ index: s.index, zkCli: s.zkCli, sentence: s.sentence, leader: s.leader }))}
          risks={plan.risks}
        />
      ) : (
        <Callout tone="lost" role="status" aria-label="Refused">
          <strong>This change cannot run</strong>
          <ul className="resize-list">
            {plan.refusals.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </Callout>
      )}

      {error && (
        <Callout tone="lost" role="alert">
          <strong>Not planned</strong>
          <p>{error}</p>
        </Callout>
      )}
      <div className="form-actions">
        <span className="form-actions__hint">
          Planning changes nothing: Keeper plans again from the configuration it reads then, runs the preflight and waits for Start.
        </span>
        <button type="submit" className="btn btn--primary" disabled={!ready} title={live ? undefined : 'Not while the data is not live'}>
          {busy ? 'Planning…' : 'Plan'}
        </button>
      </div>
    </form>
  );
}
