/**
 * The Upgrades view: the ensemble's upgrade or rolling restart, live for everyone on the
 * `upgrade` topic. Admins plan one (the preflight runs at once), start it, pause, resume or abort
 * it and act on a member's step; viewers and share links read the same page without controls.
 * The history of past upgrades follows.
 */
import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { ConsoleSessionSnapshot, EnsembleHealth, UpgradeAnswer } from '@keeper/shared';
import { useNow } from '../../lib/useNow';
import { ViewHeader } from '../../app/ViewHeader';
import type { Freshness } from '../../app/freshness/freshness';
import { PlanForm } from './PlanForm';
import { PlannedUpgrade } from './PlannedUpgrade';
import { RunningUpgrade } from './RunningUpgrade';
import { pickShown, progressAt } from './shownUpgrade';
import { UpgradeHistory } from './UpgradeHistory';
import { upgradesQueryKey } from './upgradesApi';
import type { UpgradeEntry } from './upgradeTopic';
import { isActive, upgradeWord } from './upgradeWords';
import '../../ui/sectionTitle.css';
import '../../ui/table.css';
import '../../ui/alerts.css';
import '../ensemble/ensemble.css';
import './upgrades.css';

export function Upgrades({
  ensemble,
  entry,
  freshness,
  admin,
  health,
  session,
}: {
  ensemble: string;
  entry: UpgradeEntry | undefined;
  freshness: Freshness;
  admin: boolean;
  health?: EnsembleHealth | undefined;
  session?: ConsoleSessionSnapshot | undefined;
}) {
  const [own, setOwn] = useState<UpgradeAnswer | null>(null);
  const now = useNow();
  const client = useQueryClient();
  const live = entry?.kind === 'upgrade' ? entry.upgrade : null;
  const picked = pickShown(live, own);
  // The server's clock now, from the last event: the elapsed time ticks without trusting the browser's clock.
  const serverNow = entry?.kind === 'upgrade' ? entry.at + Math.max(0, now - entry.receivedAt) : now;
  const shown = picked && progressAt(picked, serverNow);

  // The history lists every upgrade with its state: read it again when the one shown changes state.
  const stateKey = picked ? `${picked.id} ${picked.state}` : '';
  useEffect(() => {
    if (stateKey !== '') void client.invalidateQueries({ queryKey: upgradesQueryKey(ensemble) });
  }, [client, ensemble, stateKey]);

  return (
    <div className={`view upgrades${freshness.live ? '' : ' is-stale'}`}>
      <ViewHeader title="Upgrades" freshness={freshness} liveHint="Every browser sees the same upgrade as it happens">
        {shown
          ? `${shown.mode === 'full' ? 'full restart' : 'rolling restart'} ${upgradeWord(shown)}`
          : entry?.kind === 'upgrade'
            ? 'no upgrade running'
            : null}
      </ViewHeader>
      <div className="upgrades__body">
        {entry?.kind === 'refused' ? (
          <p className="error-note" role="alert">
            <span className="status tone-lost">cannot show the upgrade</span> {entry.message}
          </p>
        ) : entry === undefined && shown === null ? (
          <p className="note" aria-busy="true">
            Nothing to show yet — {freshness.live ? 'reading the upgrade' : freshness.reason}.
          </p>
        ) : (
          <>
            {shown?.state === 'planned' ? (
              <PlannedUpgrade key={shown.id} ensemble={ensemble} upgrade={shown} admin={admin} live={freshness.live} onAnswer={setOwn} />
            ) : (
              <>
                {admin && (shown === null || !isActive(shown)) && <PlanForm ensemble={ensemble} live={freshness.live} onPlanned={setOwn} />}
                {!admin && (shown === null || !isActive(shown)) && <p className="note">No upgrade is running. An admin can plan one here.</p>}
                {shown && (
                  <RunningUpgrade
                    key={shown.id}
                    ensemble={ensemble}
                    upgrade={shown}
                    admin={admin}
                    live={freshness.live}
                    onAnswer={setOwn}
                    health={health}
                    session={session}
                  />
                )}
              </>
            )}
          </>
        )}
        <UpgradeHistory ensemble={ensemble} />
      </div>
    </div>
  );
}
