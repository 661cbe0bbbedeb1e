/**
 * /audit/replicas (admins): the Keeper replicas registered in the home ensemble, each with its
 * address, version, start time and health, which one polls the members for all (sharedPolling)
 * and which runs an upgrade. Refreshed every 2 s while open; when a refresh is refused, or not
 * answered within 3 s of the reading shown, the list says "as of" the server's reading instead of
 * passing for live (docs/operating/replicas.md).
 */
import { useEffect, useState } from 'react';
import type { Replica } from '@keeper/shared';
import { errorText } from '../../lib/api';
import { formatCount } from '../../lib/bytes';
import { formatAbsolute, formatClock } from '../../lib/time';
import { useNow } from '../../lib/useNow';
import { RelativeTime } from '../../ui/RelativeTime';
import { Callout } from '../../ui/Callout';
import { AdminArea } from '../../app/AdminArea';
import { AsOf } from '../../app/freshness/AsOf';
import { freshnessOf, HEALTH_WORDS, rolesOf, unconfirmedAt, useReplicas } from './replicasApi';
import '../../ui/table.css';
import '../../app/freshness/freshness.css';
import './replicas.css';

export function ReplicasPage() {
  const now = useNow();
  const list = useReplicas();
  const answer = list.data?.answer;
  const failed = list.error ? errorText(list.error) : null;
  // The shared clock ticks once a second: the moment the list stops being confirmed is rendered on time, not up to a second late.
  const [reached, setReached] = useState(0);
  const freshness = freshnessOf(list.data, failed, list.isFetching, Math.max(now, reached));
  const deadline = freshness.live ? unconfirmedAt(list.data) : null;
  useEffect(() => {
    if (deadline === null) return;
    const timer = setTimeout(() => setReached(deadline), Math.max(0, deadline - Date.now()));
    return () => clearTimeout(timer);
  }, [deadline]);
  // Behind a load balancer each refresh may be answered by another replica: said once, not as a row's tag.
  const self = answer?.replicas.find((r) => r.self);
  const serving = answer?.replicas.filter((r) => r.health.state === 'serving').length ?? 0;
  const meta = !answer
    ? failed
      ? 'not read'
      : 'loading…'
    : answer.enabled
      ? `${formatCount(answer.replicas.length)} registered · ${formatCount(serving)} serving · home ensemble: ${answer.stateEnsemble ?? '?'}`
      : 'this Keeper runs alone';

  return (
    <AdminArea
      title="Replicas"
      meta={meta}
      aside={
        <button type="button" className="btn btn--outline" onClick={() => void list.refetch()} disabled={list.isFetching}>
          {list.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      }
    >
      <div className="replicas-status">
        {freshness.live ? (
          <span className="replicas-live tone-live" data-testid="replicas-live">
            <span className="status">live</span>{' '}
            <span className="muted">
              refreshed every 2 s · read {answer ? formatClock(answer.readAt) : ''}
              {self ? ` · answered by ${self.name}` : ''}
            </span>
          </span>
        ) : (
          <AsOf freshness={freshness} />
        )}
      </div>
      {failed && (
        <Callout tone="lost" role="alert" className="replicas-callout">
          <strong>Cannot list the replicas</strong>
          <p>{failed}</p>
        </Callout>
      )}
      {answer && !answer.enabled && (
        <Callout tone="stale" role="note" className="replicas-callout">
          <strong>No replicas configured</strong>
          <p>
            This Keeper keeps its sign-ins, share links and upgrades in its own data directory. To run several behind a load balancer, add{' '}
            <code>&quot;replicas&quot;</code> to the config (docs/operating/replicas.md).
          </p>
        </Callout>
      )}
      {answer?.enabled && (
        <div className="replicas-scroll">
          <table className="data-table replicas-table" aria-label="Replicas">
            <thead>
              <tr>
                <th scope="col">Replica</th>
                <th scope="col">Health</th>
                <th scope="col">Does for all</th>
                <th scope="col">Version</th>
                <th scope="col">Started</th>
                <th scope="col">Registered</th>
              </tr>
            </thead>
            <tbody>
              {answer.replicas.map((replica) => (
                <ReplicaRow key={replica.id} replica={replica} sharedPolling={answer.sharedPolling} live={freshness.live} />
              ))}
            </tbody>
          </table>
          <p className="replicas-note muted">
            {answer.sharedPolling
              ? 'sharedPolling is on: one elected replica polls the members; the others show its rounds. '
              : 'sharedPolling is off: every replica polls the members itself. '}
            {answer.note}
          </p>
        </div>
      )}
    </AdminArea>
  );
}

function ReplicaRow({ replica, sharedPolling, live }: { replica: Replica; sharedPolling: boolean; live: boolean }) {
  const health = HEALTH_WORDS[replica.health.state];
  const roles = rolesOf(replica, sharedPolling);
  // Not confirmed: the health is shown as it was, in grey, never in the colour of a live state.
  const tone = live ? health.tone : 'stale';
  return (
    <tr data-replica={replica.id}>
      <td data-label="Replica" className="replicas-name">
        <span className="mono replicas-name__host">{replica.name}</span>
        <span className="mono muted replicas-sub" title={`its own address; session ${replica.sessionId}`}>
          {replica.url} · pid {replica.pid}
        </span>
      </td>
      <td data-label="Health" className={`tone-${tone} replicas-health`} title={`checked ${formatAbsolute(replica.health.checkedAt)}`}>
        <span className="status">{health.word}</span>
        <span className="muted replicas-sub">
          {replica.health.detail}
          {replica.health.answeredInMs !== undefined && !replica.self ? ` · ${replica.health.answeredInMs} ms` : ''}
          {replica.health.state === 'unreachable' && replica.health.lastAnsweredAt ? ` · last answered ${formatClock(replica.health.lastAnsweredAt)}` : ''}
        </span>
      </td>
      <td data-label="Does for all">
        {roles.length ? (
          roles.map((role, i) => (
            <span key={i} className="replicas-role">
              {role}
            </span>
          ))
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td data-label="Version" className="mono">
        {replica.version}
      </td>
      <td data-label="Started">
        <RelativeTime at={replica.startedAt} />
      </td>
      <td data-label="Registered">
        <RelativeTime at={replica.registeredAt} />
        <span className="mono muted replicas-sub">session {replica.sessionId}</span>
      </td>
    </tr>
  );
}
