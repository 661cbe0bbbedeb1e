/** The resize page at /ensembles/:name/members/resize[/:reconfigId]: the `reconfig` topic while mounted, judged for freshness like every other view. */
import { useParams } from 'react-router-dom';
import { useIsAdmin } from '../../../app/me';
import { useSessionEntry } from '../../../app/consoleSession/consoleSessionTopic';
import { useFreshness } from '../../../app/freshness/useFreshness';
import { useEnsembleHealth } from '../useEnsembleHealth';
import { useReconfigEntry } from './reconfigTopic';
import { Resize } from './Resize';

export function ResizeView() {
  const params = useParams();
  const name = params.name ?? '';
  return <ResizeData key={name} ensemble={name} deepId={params.reconfigId ?? null} />;
}

function ResizeData({ ensemble, deepId }: { ensemble: string; deepId: string | null }) {
  const entry = useReconfigEntry(ensemble);
  const freshness = useFreshness(ensemble, entry?.epoch);
  const admin = useIsAdmin();
  // The leader and Keeper's own member: where the plan's steps and risks come from.
  const { health } = useEnsembleHealth(ensemble);
  const session = useSessionEntry(ensemble)?.snapshot;
  return (
    <Resize
      ensemble={ensemble}
      entry={entry}
      freshness={freshness}
      admin={admin}
      health={health}
      sessionMember={session?.state === 'connected' ? session.member : null}
      deepId={deepId}
    />
  );
}
