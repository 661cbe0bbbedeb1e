/**
 * The resize page (from the sizing view): the ensemble's resize, live for everyone on the
 * `reconfig` topic. An admin plans one (Composer), starts, pauses, resumes or aborts it; viewers and
 * share links follow the same panel read-only. A deep link to a past resize shows that one as
 * Keeper stored it. The history follows.
 */
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import type { EnsembleHealth, ReconfigWorkflow } from '@keeper/shared';
import { ViewHeader } from '../../../app/ViewHeader';
import type { Freshness } from '../../../app/freshness/freshness';
import { membersUrl, resizeUrl } from '../../../app/urls/ensembleUrls';
import { errorText } from '../../../lib/api';
import { formatClock } from '../../../lib/time';
import { useNow } from '../../../lib/useNow';
import { plural } from '../../../ui/format';
import { Composer } from './Composer';
import type { ReconfigEntry } from './reconfigTopic';
import { ResizeHistory } from './ResizeHistory';
import { reconfigsQueryKey, useConfigText, useReconfig } from './resizeApi';
import { isActive, shortId } from './resizeWords';
import { Workflow } from './Workflow';
import '../../../ui/forms.css';
import '../../../ui/sectionTitle.css';
import '../../../ui/table.css';
import '../../../ui/alerts.css';
import './resize.css';

/** The live topic's workflow, or the answer to this admin's own request when that is newer (its event may not have arrived yet). */
export function pickShown(live: ReconfigWorkflow | null, own: ReconfigWorkflow | null): ReconfigWorkflow | null {
  if (own === null) return live;
  if (live === null) return own;
  if (live.id === own.id) return live.updatedAt >= own.updatedAt ? live : own;
  return isActive(live) || !isActive(own) ? live : own;
}

/** An admin's full copy brings the filled startCommand, which the topic (shared by every browser) withholds. */
function withJoiners(shown: ReconfigWorkflow, full: ReconfigWorkflow | undefined): ReconfigWorkflow {
  return full && full.id === shown.id ? { ...shown, joiners: full.joiners } : shown;
}

export function Resize({
  ensemble,
  entry,
  freshness,
  admin,
  health,
  sessionMember,
  deepId,
}: {
  ensemble: string;
  entry: ReconfigEntry | undefined;
  freshness: Freshness;
  admin: boolean;
  health: EnsembleHealth | undefined;
  sessionMember: string | null;
  /** A resize named in the URL, or null for the current one. */
  deepId: string | null;
}) {
  const [own, setOwn] = useState<ReconfigWorkflow | null>(null);
  const now = useNow();
  const client = useQueryClient();
  const live = entry?.kind === 'reconfig' ? entry.reconfig : null;
  const current = pickShown(live, own);
  const serverNow = entry?.kind === 'reconfig' ? entry.at + Math.max(0, now - entry.receivedAt) : now;

  // A past resize by its link: read once; the current one is the live one.
  const deep = deepId !== null && deepId !== current?.id ? deepId : null;
  const past = useReconfig(ensemble, deep, 0);
  const withheld = current !== null && isActive(current) && current.joiners.some((j) => j.startCommandWithheld);
  const full = useReconfig(ensemble, admin && withheld ? current.id : null, current?.updatedAt ?? 0);
  const shown = current && withJoiners(current, full.data);

  // The history lists every resize with its state, and the configuration moves with each step: read both again when it changes.
  const stateKey = current ? `${current.id} ${current.state} ${current.verifiedVersion}` : '';
  useEffect(() => {
    if (stateKey !== '') void client.invalidateQueries({ queryKey: reconfigsQueryKey(ensemble) });
  }, [client, ensemble, stateKey]);
  const planning = admin && deep === null && entry?.kind === 'reconfig' && (shown === null || !isActive(shown));
  const config = useConfigText(ensemble, planning, stateKey, current?.state === 'done' ? current.verifiedVersion : null);

  const voters = health?.quorum.voters;
  return (
    <div className={`view resize${freshness.live ? '' : ' is-stale'}`}>
      <ViewHeader title="Resize" freshness={freshness} liveHint="Every browser sees the same resize as it happens">
        <Link to={membersUrl(ensemble)}>Ensemble</Link>
        {voters !== undefined && health && (
          <>
            {' '}
            · {plural(voters, 'voter')}
            {health.quorum.observers > 0 && ` + ${plural(health.quorum.observers, 'observer')}`}
          </>
        )}
        {shown && isActive(shown) && <> · resize {shown.state}</>}
      </ViewHeader>
      <div className="resize__body">
        {entry?.kind === 'refused' ? (
          <p className="error-note" role="alert">
            <span className="status tone-lost">cannot show the resize</span> {entry.message}
          </p>
        ) : deep !== null ? (
          <>
            <p className="note">
              A resize by its link, as Keeper stored it{past.dataUpdatedAt ? ` (read at ${formatClock(past.dataUpdatedAt)})` : ''}.{' '}
              <Link to={resizeUrl(ensemble)}>The current resize</Link>
            </p>
            {past.isError ? (
              <p className="error-note" role="alert">
                <span className="status tone-lost">no such resize</span> {errorText(past.error)}
              </p>
            ) : past.data ? (
              <Workflow ensemble={ensemble} wf={past.data} admin={false} live={false} serverNow={serverNow} onAnswer={setOwn} />
            ) : (
              <p className="note" aria-busy="true">
                Reading resize {shortId(deep)}…
              </p>
            )}
          </>
        ) : entry === undefined && shown === null ? (
          <p className="note" aria-busy="true">
            Nothing to show yet — {freshness.live ? 'reading the resize' : freshness.reason}.
          </p>
        ) : (
          <>
            {planning &&
              (config.data ? (
                <Composer
                  ensemble={ensemble}
                  config={config.data}
                  health={health}
                  sessionMember={sessionMember}
                  live={freshness.live}
                  onPlanned={setOwn}
                  onReread={() => void config.refetch()}
                />
              ) : config.isError ? (
                <p className="error-note" role="alert">
                  <span className="status tone-lost">cannot read /zookeeper/config</span> {errorText(config.error)}
                </p>
              ) : (
                <p className="note" aria-busy="true">
                  Reading /zookeeper/config…
                </p>
              ))}
            {!admin && (shown === null || !isActive(shown)) && <p className="note">No resize is running. An admin can plan one here; you follow it live.</p>}
            {shown && (
              <>
                {!isActive(shown) && <h2 className="section-title resize__last">The last resize</h2>}
                <Workflow ensemble={ensemble} wf={shown} admin={admin} live={freshness.live} serverNow={serverNow} onAnswer={setOwn} />
              </>
            )}
          </>
        )}
        <ResizeHistory ensemble={ensemble} shownId={deep ?? shown?.id ?? null} />
      </div>
    </div>
  );
}
