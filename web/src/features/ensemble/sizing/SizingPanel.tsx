/**
 * Sizing beside the live data: what the live ensemble tolerates and what the docs recommend for
 * it, a what-if for taking one member down now, and a calculator for other sizes. Computed here
 * with the same shared functions the server's /sizing endpoint uses (sizingReport, whatIfDown),
 * from the very poll on screen: instant, no request per stepper click, never out of step with the
 * member cards beside it. Resizing starts here: the resize under way, or "Plan a resize".
 */
import { useMemo, useState } from 'react';
import { sizingReport, whatIfDown, type EnsembleHealth, type SizingReport } from '@keeper/shared';
import { plural } from '../../../ui/format';
import type { ReconfigEntry } from '../resize/reconfigTopic';
import { ResizeSummary } from '../resize/ResizeSummary';
import { Calculator } from './Calculator';
import { WhatIf } from './WhatIf';
import '../../../ui/forms.css';
import './sizing.css';

export function SizingPanel({
  ensemble,
  health,
  selected,
  stale,
  resize,
  admin,
}: {
  ensemble: string;
  health: EnsembleHealth | undefined;
  selected: string | null;
  stale: boolean;
  resize: ReconfigEntry | undefined;
  admin: boolean;
}) {
  const [down, setDown] = useState<string | null>(selected);
  // A deep link to a member proposes it for the what-if (adjusted during render, no extra frame).
  const [proposed, setProposed] = useState(selected);
  if (proposed !== selected) {
    setProposed(selected);
    if (selected !== null) setDown(selected);
  }
  const quorum = health?.quorum;
  const live = useMemo(
    () => (quorum ? sizingReport({ voters: quorum.voters, observers: quorum.observers, votersDown: quorum.voters - quorum.votersServing }) : null),
    [quorum],
  );
  const members = health?.members;
  const whatIf = useMemo(() => {
    const target = down === null ? undefined : members?.find((m) => m.address === down);
    return members && target ? whatIfDown(members, target) : null;
  }, [members, down]);

  return (
    <section className="sizing" aria-label="Sizing">
      <h2 className="section-title sizing__heading">Sizing</h2>
      <section className="sizing__block" aria-label="This ensemble">
        <h3 className="section-title">This ensemble</h3>
        {live ? <LiveReport report={live} stale={stale} /> : <p className="note">Waiting for the first poll…</p>}
      </section>
      <ResizeSummary ensemble={ensemble} entry={resize} admin={admin} />
      {members && <WhatIf members={members} down={down} onDown={setDown} answer={whatIf} stale={stale} />}
      {quorum && <Calculator liveVoters={Math.max(1, quorum.voters)} liveObservers={quorum.observers} />}
    </section>
  );
}

function LiveReport({ report, stale }: { report: SizingReport; stale: boolean }) {
  const { voters, observers, votersDown } = report.input;
  const survives = report.survivesMaintenancePlusFailure;
  return (
    <>
      <p className="sizing__shape">
        <strong>{plural(voters, 'voter')}</strong>
        {observers > 0 && <strong> + {plural(observers, 'observer')}</strong>}
        {votersDown > 0 && <span className={stale ? 'muted' : 'sizing__down'}> · {votersDown} not serving now</span>}
      </p>
      <dl className="figure-grid sizing__figures">
        <div>
          <dt>quorum</dt>
          <dd>
            {report.quorumSize} of {voters}
          </dd>
        </div>
        <div>
          <dt>tolerates</dt>
          <dd>{plural(report.tolerates, 'failure')}</dd>
        </div>
        <div>
          <dt>can lose now</dt>
          <dd>{report.hasQuorumNow ? report.canLoseNow : 'no quorum'}</dd>
        </div>
      </dl>
      <p className={`sizing__maint tone-${stale ? 'stale' : survives ? 'live' : 'degraded'}`}>
        <span className="status">{survives ? 'survives' : 'does not survive'}</span> one member in maintenance plus one unexpected failure
      </p>
      <p className="sizing__reco">{report.recommendation}</p>
    </>
  );
}
