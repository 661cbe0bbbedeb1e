/**
 * A node whose ACL does not let the console read it (getData/getChildren answer NO_AUTH). What
 * can still be known is shown: its stat (`exists` needs no permission), which scheme and id
 * would grant READ (when ZooKeeper reveals the ACL: only to READ or ADMIN), and how to give
 * Keeper that credential. The stat is read once over HTTP, not watched: it says when.
 */
import { useQuery } from '@tanstack/react-query';
import { ROUTES, type ConsoleIdentityEntry } from '@keeper/shared';
import { call, ApiError, errorText } from '../../lib/api';
import { formatAbsolute, formatClock } from '../../lib/time';
import { getAcl } from './ops/opsApi';
import { noAuthSentence, readersOf } from './accessModel';
import { StatTable } from './StatTable';
import { Escaped } from './ZnodeName';
import { Callout } from '../../ui/Callout';

export function UnreadableNode({
  ensemble,
  path,
  consoleSessionId,
  identity,
}: {
  ensemble: string;
  path: string;
  consoleSessionId: string | null;
  /** Who ZooKeeper sees the console as (whoAmI); null before it answered or where it cannot say. */
  identity: readonly ConsoleIdentityEntry[] | null;
}) {
  const stat = useQuery({
    queryKey: ['ensembles', ensemble, 'bareStat', path],
    queryFn: () => call(ROUTES.znodeStat, { params: { name: ensemble, path } }),
    retry: false,
    staleTime: Infinity,
  });
  const acl = useQuery({
    queryKey: ['ensembles', ensemble, 'acl', path, 'unreadable'],
    queryFn: () => getAcl(ensemble, path),
    retry: false,
    staleTime: Infinity,
  });
  const aclHidden = acl.error instanceof ApiError && acl.error.code === 'NO_AUTH';
  const needs = acl.data ? readersOf(acl.data.acl) : [];
  // Said once the ACL is known (or known to be hidden): "…; this node’s ACL grants read only to sasl:billing".
  const seen = acl.isPending ? null : noAuthSentence(identity, 'read', acl.data ? acl.data.acl.filter((e) => e.perms.includes('r')) : null);

  return (
    <div className="node-panel unreadable">
      <Callout tone="degraded" role="status" aria-label="No read access">
        <strong>Keeper may not read this node</strong>
        <p>
          ZooKeeper refused to give the console the data and children of{' '}
          <span className="mono">
            <Escaped text={path} />
          </span>{' '}
          (NO_AUTH): its ACL does not grant the console READ. Its stat is below: reading it needs no permission.
        </p>
        {seen && <p className="unreadable__seen">{seen}.</p>}
      </Callout>
      <div className="node-panel__content unreadable__content">
        <section className="unreadable__need" aria-label="Access needed">
          <h2 className="section-title">Access needed</h2>
          {acl.isPending ? (
            <p className="muted">reading the ACL…</p>
          ) : aclHidden ? (
            <>
              <p>
                ZooKeeper does not reveal this ACL either: it shows a node’s ACL only to a client with READ or ADMIN on it. What is known: no entry grants READ
                to anyone, nor to the credentials Keeper presents.
              </p>
              <p className="muted">
                Whoever made the node can tell which scheme and id it names (<span className="mono">getAcl {path}</span> in zkCli with their credentials).
              </p>
            </>
          ) : acl.error ? (
            <p>
              <span className="status tone-lost">cannot read the ACL</span> {errorText(acl.error)}
            </p>
          ) : needs.length === 0 ? (
            <p>No entry of this ACL grants READ to anyone: nobody can read this node until its ACL changes.</p>
          ) : (
            <>
              <p>Reading needs one of these ACL entries (scheme:id):</p>
              <ul className="unreadable__list">
                {needs.map((n) => (
                  <li key={`${n.scheme}:${n.id}`}>
                    <span className="mono unreadable__id">
                      <span className="muted">{n.scheme}:</span>
                      {n.id}
                    </span>
                    <span className="muted unreadable__how">{n.how}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
          {needs.length === 0 && (
            <p className="muted unreadable__config">
              Keeper presents the credentials listed in the ensemble’s <span className="mono">"auth"</span> entries of its config file, e.g.{' '}
              <span className="mono">{'"auth": [{ "scheme": "digest", "credential": "user:password" }]'}</span> (docs/operating/configuration.md), and its{' '}
              <span className="mono">"sasl"</span> identity and <span className="mono">"tls"</span> client certificate (docs/operating/secured-ensembles.md);
              restart Keeper after adding one.
            </p>
          )}
        </section>
        <div className="node-panel__side">
          {stat.data?.stat ? (
            <>
              <StatTable ensemble={ensemble} stat={stat.data.stat} consoleSessionId={consoleSessionId} />
              <p className="muted unreadable__asof">
                <span>
                  Read at <time title={formatAbsolute(stat.dataUpdatedAt)}>{formatClock(stat.dataUpdatedAt)}</time>, not live.
                </span>
                <button type="button" className="btn btn--small" onClick={() => void stat.refetch()} disabled={stat.isFetching}>
                  {stat.isFetching ? 'Reading…' : 'Read again'}
                </button>
              </p>
            </>
          ) : stat.data ? (
            <p className="muted">The node no longer exists.</p>
          ) : stat.error ? (
            <p>
              <span className="status tone-lost">cannot read the stat</span> {errorText(stat.error)}
            </p>
          ) : (
            <p className="muted">reading the stat…</p>
          )}
        </div>
      </div>
    </div>
  );
}
