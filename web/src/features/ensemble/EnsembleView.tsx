/**
 * The ensemble view at /ensembles/:name/members[/:address]: the quorum in one sentence, the
 * alerts, every member live (each poll arrives over the socket), the event timeline, and sizing beside them.
 * A member's deep link highlights and expands it, so a pasted link shows exactly that member.
 */
import { useParams } from 'react-router-dom';
import { EnsembleBody } from './EnsembleBody';
import { useEnsembleHealth } from './useEnsembleHealth';
import { useEnsembleEvents } from './ensembleEventsTopic';
import { useReconfigEntry } from './resize/reconfigTopic';
import { useIsAdmin } from '../../app/me';

export function EnsembleView() {
  const params = useParams();
  const ensemble = params.name ?? '';
  // A new ensemble is a new view: keying resets dismissals, the what-if and the calculator.
  return <Ensemble key={ensemble} ensemble={ensemble} selected={params.address ?? null} />;
}

function Ensemble({ ensemble, selected }: { ensemble: string; selected: string | null }) {
  const { health, history, freshness } = useEnsembleHealth(ensemble);
  const events = useEnsembleEvents(ensemble);
  const resize = useReconfigEntry(ensemble);
  const admin = useIsAdmin();
  return (
    <EnsembleBody
      ensemble={ensemble}
      selected={selected}
      health={health}
      history={history}
      freshness={freshness}
      events={events?.events}
      resize={resize}
      admin={admin}
    />
  );
}
