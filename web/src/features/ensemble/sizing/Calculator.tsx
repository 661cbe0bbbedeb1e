/**
 * Voters and observers in, the ZooKeeper docs' answers out: quorum size, failures tolerated,
 * whether one member in maintenance plus one failure is survivable (why 5 is recommended),
 * and the notes on writes, reads and observers. The words come from the shared sizing report.
 */
import { useMemo, useState } from 'react';
import { sizingReport } from '@keeper/shared';
import { plural } from '../../../ui/format';
import { Stepper } from './Stepper';

export function Calculator({ liveVoters, liveObservers }: { liveVoters: number; liveObservers: number }) {
  // Starts at the live ensemble's shape, so the first step shows what one more (or fewer) changes.
  const [voters, setVoters] = useState(liveVoters);
  const [observers, setObservers] = useState(liveObservers);
  const isLiveShape = voters === liveVoters && observers === liveObservers;
  const report = useMemo(() => sizingReport({ voters, observers, votersDown: 0 }), [voters, observers]);
  const survives = report.survivesMaintenancePlusFailure;
  return (
    <section className="sizing__block" aria-label="Calculator">
      <h3 className="section-title">Calculator</h3>
      <div className="sizing__steppers">
        <Stepper label="Voters" value={voters} min={1} max={15} onChange={setVoters} />
        <Stepper label="Observers" value={observers} min={0} max={15} onChange={setObservers} />
      </div>
      <div className="sizing__result" aria-live="polite">
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
            <dt>write acks</dt>
            <dd title="every write waits for this many voters">{report.quorumSize}</dd>
          </div>
        </dl>
        <p className={`sizing__maint tone-${survives ? 'live' : 'degraded'}`}>
          <span className="status">{survives ? 'survives' : 'does not survive'}</span> one member in maintenance plus one unexpected failure
        </p>
        {report.notes.length > 0 && (
          <ul className="sizing__notes">
            {report.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
        {/* The live block above already gives this advice for the live shape. */}
        {!isLiveShape && <p className="sizing__reco">{report.recommendation}</p>}
      </div>
    </section>
  );
}
