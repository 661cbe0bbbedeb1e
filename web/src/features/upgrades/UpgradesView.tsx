/** The Upgrades view at /ensembles/:name/upgrades: the `upgrade` topic while mounted, judged for freshness like every other view. */
import { useParams } from 'react-router-dom';
import { useIsAdmin } from '../../app/me';
import { useSessionEntry } from '../../app/consoleSession/consoleSessionTopic';
import { useEnsembleHealth } from '../ensemble/useEnsembleHealth';
import { useFreshness } from '../../app/freshness/useFreshness';
import { Upgrades } from './Upgrades';
import { useUpgradeEntry } from './upgradeTopic';

export function UpgradesView() {
  const name = useParams().name ?? '';
  return <UpgradesData key={name} ensemble={name} />;
}

function UpgradesData({ ensemble }: { ensemble: string }) {
  const entry = useUpgradeEntry(ensemble);
  const freshness = useFreshness(ensemble, entry?.epoch);
  const admin = useIsAdmin();
  // Where Keeper's own session is and each member's connections: what the upgrade does to clients.
  const { health } = useEnsembleHealth(ensemble);
  const session = useSessionEntry(ensemble)?.snapshot;
  return <Upgrades ensemble={ensemble} entry={entry} freshness={freshness} admin={admin} health={health} session={session} />;
}
