/**
 * How to start each member the resize adds, before its step: ZooKeeper adds only a member already
 * connected to the leader as a learner. The ensemble's startCommand filled for it (admins; others
 * are told one exists), else the zoo.cfg and dynamic configuration lines Keeper wrote for it.
 */
import type { ReconfigWorkflow } from '@keeper/shared';
import { CopyButton } from '../../../ui/CopyButton';
import { formatAbsolute, formatClock } from '../../../lib/time';

export function JoinerStarts({ wf, admin }: { wf: ReconfigWorkflow; admin: boolean }) {
  const waiting = wf.joiners.filter((j) => wf.steps.some((s) => s.kind === 'add' && s.memberId === j.memberId && s.state !== 'done'));
  if (waiting.length === 0) return null;
  // The preflight's own sighting of each (running, a learner of the leader, caught up), as of its check.
  const sighting = (id: number) => wf.preflight.find((c) => c.id === `joiner-${id}` && c.ok) ?? null;
  const toStart = waiting.filter((j) => sighting(j.memberId) === null).length;
  return (
    <section className="resize-joiners" aria-label="Members to start">
      <h3 className="section-title">
        {toStart === 0
          ? `${waiting.length === 1 ? 'The member' : 'The members'} to add ${waiting.length === 1 ? 'was' : 'were'} seen ready`
          : `Start ${toStart === 1 ? 'the member' : 'the members'} to add first`}
      </h3>
      <p className="note">
        ZooKeeper adds only a member that is running and connected to the leader as a learner, caught up: start it with the current configuration plus itself.
        The preflight checks it before the resize starts.
      </p>
      {waiting.map((j) => (
        <div key={j.memberId} className="resize-joiner">
          <p className="resize-joiner__title">
            <strong>
              Member {j.memberId}, as {j.role === 'participant' ? 'a voter' : 'an observer'}
            </strong>
            <Sighting check={sighting(j.memberId)} />
          </p>
          {j.startCommand !== null ? (
            <Snippet label={`Start command for member ${j.memberId}`} text={j.startCommand} />
          ) : j.startCommandWithheld ? (
            <p className="note">{admin ? 'Reading the start command…' : 'The ensemble has a start command; admins see it.'}</p>
          ) : null}
          <details className="resize-joiner__files" open={j.startCommand === null && !j.startCommandWithheld}>
            <summary>Its zoo.cfg and dynamic configuration</summary>
            <Snippet label={`zoo.cfg for member ${j.memberId}`} text={j.zooCfg} />
            <Snippet label={`Dynamic configuration for member ${j.memberId}`} text={j.dynamicConfig} />
          </details>
        </div>
      ))}
    </section>
  );
}

/** What the preflight saw of a member to add: ready as of its check, or not seen ready. */
function Sighting({ check }: { check: ReconfigWorkflow['preflight'][number] | null }) {
  if (!check) return <span className="muted"> · not seen ready yet: start it</span>;
  return (
    <span className="muted">
      {' '}
      · <span className="status tone-live">ready</span> as of{' '}
      <time dateTime={new Date(check.at).toISOString()} title={formatAbsolute(check.at)}>
        {formatClock(check.at)}
      </time>
      : {check.saw}
    </span>
  );
}

function Snippet({ label, text }: { label: string; text: string }) {
  return (
    <div className="resize-snippet">
      <pre className="mono" aria-label={label}>
        {text}
      </pre>
      <CopyButton text={text} label={`Copy: ${label}`} className="resize-snippet__copy" />
    </div>
  );
}
