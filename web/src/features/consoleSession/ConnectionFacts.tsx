/**
 * In the session's popover: how the console reaches the ensemble (TLS and what it checks, SASL
 * and as whom), the identities ZooKeeper applies to ACLs for it (whoAmI), the warning of an
 * unverified TLS configuration, and the last TLS or SASL problem.
 */
import type { ConsoleConnectionFacts } from '@keeper/shared';
import { Callout } from '../../ui/Callout';
import { RelativeTime } from '../../ui/RelativeTime';
import { identityList } from '../../app/consoleSession/connectionWords';

export function ConnectionFacts({ facts }: { facts: ConsoleConnectionFacts }) {
  return (
    <section className="connection-facts" aria-label="Connection">
      {facts.warning && (
        <Callout tone="degraded" role="note" className="connection-facts__warning">
          <strong>Warning:</strong> {facts.warning}.
        </Callout>
      )}
      <dl className="session-timeline__facts connection-facts__list">
        <div>
          <dt>Transport</dt>
          <dd>{facts.tls ?? 'plain TCP, no TLS'}</dd>
        </div>
        <div>
          <dt>SASL</dt>
          <dd>{facts.sasl ?? 'none'}</dd>
        </div>
        <div className="connection-facts__wide">
          <dt>ZooKeeper sees Keeper as</dt>
          <dd>
            {facts.identity === null ? (
              <span className="muted">{facts.identityNote ?? 'not known yet: whoAmI is asked once connected'}</span>
            ) : facts.identity.length === 0 ? (
              <span className="muted">no identity: only world:anyone entries apply</span>
            ) : (
              <span className="mono connection-facts__identity">{identityList(facts.identity)}</span>
            )}
          </dd>
        </div>
        {facts.problem && (
          <div className="connection-facts__wide">
            <dt>Last {facts.problem.kind === 'handshake' ? 'handshake' : facts.problem.kind.toUpperCase()} problem</dt>
            <dd>
              <span>
                {facts.problem.message} <span className="muted">({facts.problem.member}, </span>
                <RelativeTime at={facts.problem.at} className="muted" />
                <span className="muted">)</span>
              </span>
            </dd>
          </div>
        )}
      </dl>
    </section>
  );
}
