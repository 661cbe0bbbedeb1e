/**
 * A plan's size before and after ("3 voters tolerate 1 failure → 5 voters tolerate 2 failures"),
 * its steps as ZooKeeper's reconfig commands in the order they run, and its risks. The composer
 * shows it as the change is typed; a stored workflow shows its own steps (Workflow.tsx).
 */
import type { EnsembleSize, ReconfigRisk, ReconfigState } from '@keeper/shared';
import { Callout } from '../../../ui/Callout';
import { plural } from '../../../ui/format';

export interface PreviewStep {
  index: number;
  zkCli: string;
  sentence: string;
  leader: boolean;
}

/** What the two sizes are, by where the resize stands: a finished one's "now" is its new size. */
export const SIZE_LABELS: Record<ReconfigState, readonly [string, string]> = {
  planned: ['now', 'after'],
  running: ['now', 'after'],
  paused: ['now', 'after'],
  done: ['before', 'now'],
  failed: ['before', 'planned'],
  aborted: ['before', 'planned'],
};

export function SizeChange({ before, after, state = 'planned' }: { before: EnsembleSize; after: EnsembleSize; state?: ReconfigState }) {
  const [beforeLabel, afterLabel] = SIZE_LABELS[state];
  return (
    <div className="resize-sizes" aria-label="Size before and after">
      <SizeFigure label={beforeLabel} size={before} />
      <span className="resize-sizes__arrow" aria-hidden="true">
        →
      </span>
      <SizeFigure label={afterLabel} size={after} />
    </div>
  );
}

function SizeFigure({ label, size }: { label: string; size: EnsembleSize }) {
  const tone = size.voters < 3 ? 'degraded' : 'live';
  return (
    <dl className="resize-size">
      <dt className="muted">{label}</dt>
      <dd>
        <strong>{plural(size.voters, 'voter')}</strong>
        {size.observers > 0 && <> + {plural(size.observers, 'observer')}</>}
      </dd>
      <dd className={`tone-${tone}`}>
        <span className="status">tolerates {plural(size.tolerates, 'failure')}</span>
      </dd>
    </dl>
  );
}

export function PlanPreview({
  sizeSentence,
  before,
  after,
  steps,
  risks,
}: {
  sizeSentence: string;
  before: EnsembleSize;
  after: EnsembleSize;
  steps: readonly PreviewStep[];
  risks: readonly ReconfigRisk[];
}) {
  return (
    <section className="resize-preview" aria-label="The plan">
      <SizeChange before={before} after={after} />
      <p className="resize-sentence">{sizeSentence}</p>
      <ol className="resize-steps" aria-label="Steps">
        {steps.map((s) => (
          <li key={s.index} className="resize-step">
            <span className="resize-step__n">{s.index}.</span>
            <code className="mono resize-step__cli">{s.zkCli}</code>
            <span className="resize-step__sentence">
              {s.sentence}
              {s.leader && <span className="chip tone-degraded">election</span>}
            </span>
          </li>
        ))}
      </ol>
      <p className="note">One reconfig per step, each conditioned on the configuration version Keeper verified after the step before (-v).</p>
      {risks.length > 0 && (
        <Callout tone="degraded" role="note">
          <strong>Needs a typed confirmation to start</strong>
          <ul className="resize-list">
            {risks.map((r) => (
              <li key={r.id}>{r.sentence}</li>
            ))}
          </ul>
        </Callout>
      )}
    </section>
  );
}
