/**
 * What the ensemble view shows for a given health, history and freshness: the quorum sentence,
 * the alerts, the member cards and sizing. Apart from the socket hook that feeds it (EnsembleView),
 * so it renders in a component test from fixtures alone.
 */
import { useEffect, useMemo } from 'react';
import { plural } from '../../ui/format';
import type { EnsembleEvent, MemberStatus } from '@keeper/shared';
import { AlertList } from './AlertList';
import { EventTimeline } from './EventTimeline';
import { MemberCard } from './MemberCard';
import { QuorumBanner } from './QuorumBanner';
import { SizingPanel } from './sizing/SizingPanel';
import type { ReconfigEntry } from './resize/reconfigTopic';
import { useDismissedAlerts } from './useDismissedAlerts';
import type { EnsembleHealthView } from './useEnsembleHealth';
import { ViewHeader } from '../../app/ViewHeader';
import '../../ui/alerts.css';
import './ensemble.css';

export function EnsembleBody({
  ensemble,
  selected,
  health,
  history,
  freshness,
  events,
  resize,
  admin = false,
}: {
  ensemble: string;
  selected: string | null;
  events?: readonly EnsembleEvent[] | undefined;
  /** The `reconfig` topic's entry: the sizing view's resize block. */
  resize?: ReconfigEntry | undefined;
  admin?: boolean;
} & EnsembleHealthView) {
  const alerts = health?.alerts;
  const { dismissed, dismiss, restoreAll } = useDismissedAlerts(ensemble, alerts ?? NO_ALERTS, freshness.live && health !== undefined);
  const stale = !freshness.live;
  const oddBuilds = useMemo(() => membersOffTheCommonBuild(health?.members ?? []), [health?.members]);

  // Bring a deep-linked member into view once it is on screen.
  const selectedShown = selected !== null && health?.members.some((m) => m.address === selected) === true;
  useEffect(() => {
    if (!selectedShown || selected === null) return;
    document.getElementById(`member-${selected}`)?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [selected, selectedShown]);

  return (
    <div className="view ensemble">
      <ViewHeader
        title="Ensemble"
        freshness={freshness}
        liveHint={health ? `Polled every ${Math.round(health.pollIntervalMs / 1000)} s; each poll appears here as it happens` : undefined}
      >
        {health && (
          <>
            {plural(health.members.length, 'member')} · polled every {Math.round(health.pollIntervalMs / 1000)} s
          </>
        )}
      </ViewHeader>
      <div className="ensemble__body">
        <div className="ensemble__main">
          {health === undefined ? (
            <p className="note ensemble__waiting" aria-busy="true">
              Nothing to show yet — {freshness.live ? 'reading' : freshness.reason}.
            </p>
          ) : (
            <>
              <QuorumBanner ensemble={ensemble} quorum={health.quorum} alerts={health.alerts} members={health.members} stale={stale} />
              <AlertList ensemble={ensemble} alerts={health.alerts} dismissed={dismissed} onDismiss={dismiss} onRestore={restoreAll} stale={stale} />
              {selected !== null && !selectedShown && (
                <p className="error-note" role="note">
                  <span className="status tone-stale">not a member</span> <span className="mono">{selected}</span> is not in this ensemble’s configuration.
                </p>
              )}
              <section className="members" aria-label="Members">
                {selectedFirst(health.members, selected).map((m) => (
                  <MemberCard
                    key={m.address}
                    ensemble={ensemble}
                    member={m}
                    alerts={health.alerts}
                    history={history?.[m.address]}
                    historyTo={health.polledAt}
                    stale={stale}
                    selected={m.address === selected}
                    votingFollowers={Math.max(0, health.quorum.voters - 1)}
                    pollIntervalMs={health.pollIntervalMs}
                    buildDiffers={oddBuilds.has(m.address)}
                  />
                ))}
              </section>
              {health.removed && health.removed.length > 0 && <RemovedMembers members={health.removed} stale={stale} />}
              <EventTimeline events={events} stale={stale} />
            </>
          )}
        </div>
        <SizingPanel ensemble={ensemble} health={health} selected={selected} stale={stale} resize={resize} admin={admin} />
      </div>
    </div>
  );
}

const NO_ALERTS: readonly never[] = [];

/** Members a reconfig removed that still answer: out of every count above, and to be stopped. */
function RemovedMembers({ members, stale }: { members: readonly MemberStatus[]; stale: boolean }) {
  return (
    <section className="removed-members" aria-label="Removed members">
      <h2 className="section-title">Removed from the ensemble</h2>
      <ul className="removed-members__list">
        {members.map((m) => (
          <li key={m.address} className={`tone-${stale ? 'stale' : 'degraded'}`}>
            <span className="status">still running</span>{' '}
            <strong>
              {m.id !== null ? `member ${m.id}` : 'a member'} <span className="mono">{m.address}</span>
            </strong>
            : removed from the ensemble, still running: stop it. <span className="muted">It answers as {m.state}; it counts in no quorum.</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Members whose build string is not the one most members run (none when all agree or there is no majority build). */
export function membersOffTheCommonBuild(members: readonly { address: string; metrics: { version: string | null } }[]): ReadonlySet<string> {
  const counts = new Map<string, number>();
  for (const m of members) if (m.metrics.version) counts.set(m.metrics.version, (counts.get(m.metrics.version) ?? 0) + 1);
  if (counts.size < 2) return new Set();
  const [top, second] = [...counts.values()].sort((a, b) => b - a);
  if (top === second) return new Set(members.filter((m) => m.metrics.version).map((m) => m.address));
  const common = [...counts].find(([, n]) => n === top)![0];
  return new Set(members.filter((m) => m.metrics.version && m.metrics.version !== common).map((m) => m.address));
}

/** A deep-linked member opens expanded at the top; the others keep their order below it. */
function selectedFirst<T extends { address: string }>(members: readonly T[], selected: string | null): readonly T[] {
  const i = selected === null ? -1 : members.findIndex((m) => m.address === selected);
  if (i <= 0) return members;
  return [members[i]!, ...members.slice(0, i), ...members.slice(i + 1)];
}
