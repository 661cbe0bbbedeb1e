/**
 * The selected znode: stat and data, live. Deleted while shown, it stays on screen greyed under a
 * banner, and comes back to life if the path is created again (the subscription keeps watching).
 * A node the console may not read (NO_AUTH) shows what can be known instead of loading forever.
 */
import { useSubscription, useSubscriptionError, useZnodeEntry } from './znodeTopic';
import { useSessionEntry } from '../../app/consoleSession/consoleSessionTopic';
import { formatAbsolute, formatClock } from '../../lib/time';
import { useFreshness } from '../../app/freshness/useFreshness';
import { DataViewer } from './DataViewer';
import { StatTable } from './StatTable';
import { AclPanel } from './acl/AclPanel';
import { readFailureOf } from './readFailure';
import { seenAs } from '../../app/consoleSession/connectionWords';
import { Escaped } from './ZnodeName';
import { Callout } from '../../ui/Callout';
import { lazyNamed } from '../../lib/lazyNamed';
import { LazyPart } from '../../ui/LazyPart';

// Only a node the console may not read needs it.
const UnreadableNode = lazyNamed(() => import('./UnreadableNode'), 'UnreadableNode');

export function NodePanel({ ensemble, path }: { ensemble: string; path: string }) {
  useSubscription(ensemble, path);
  const entry = useZnodeEntry(ensemble, path);
  const error = useSubscriptionError(ensemble, path);
  const freshness = useFreshness(ensemble, entry?.epoch);
  const session = useSessionEntry(ensemble)?.snapshot;
  const consoleSessionId = session?.sessionId ?? null;
  // Who ZooKeeper sees the console as (whoAmI), for the NO_AUTH explanations.
  const identity = session?.connection?.identity ?? null;
  const failure = readFailureOf(error);

  if (entry === undefined && failure?.kind === 'noAuth')
    return (
      <LazyPart>
        <UnreadableNode key={path} ensemble={ensemble} path={path} consoleSessionId={consoleSessionId} identity={identity} />
      </LazyPart>
    );

  const errorNote = error && (
    <p className="node-panel__error" role="alert">
      <span className="status tone-lost">cannot read</span>{' '}
      {failure?.kind === 'noAuth'
        ? `ZooKeeper now refuses the console READ on this node (NO_AUTH): its ACL changed${identity ? ` (${seenAs(identity)})` : ''}. What is shown is the last value read.`
        : error.message}
      {error.retrying ? ' — Keeper keeps retrying; what is shown may be old.' : ''}
    </p>
  );

  if (entry === undefined) {
    return (
      <div className="node-panel">
        {errorNote ??
          (freshness.live ? (
            <p className="node-panel__loading muted" aria-busy="true">
              Reading{' '}
              <span className="mono">
                <Escaped text={path} />
              </span>
              …
            </p>
          ) : (
            <p className="node-panel__loading muted" aria-busy="true">
              Nothing read yet: {freshness.reason}.{' '}
              <span className="mono">
                <Escaped text={path} />
              </span>{' '}
              appears here as soon as it can be read.
            </p>
          ))}
      </div>
    );
  }

  const content = entry.node.exists ? { stat: entry.node.stat, data: entry.node.data } : entry.last;
  const deleted = !entry.node.exists;
  const stale = !freshness.live || deleted;

  return (
    <div className={`node-panel${stale ? ' is-stale' : ''}`}>
      {errorNote}
      {deleted &&
        (entry.deletedAt !== null ? (
          <Callout tone="lost" role="status" className="deleted-banner">
            <strong>
              deleted at <time title={formatAbsolute(entry.deletedAt)}>{formatClock(entry.deletedAt)}</time> — this node no longer exists
            </strong>
            <span className="muted">The last data seen is kept below, greyed. It comes back here live if the node is created again.</span>
          </Callout>
        ) : (
          <Callout tone="stale" role="status" className="deleted-banner">
            <strong>No znode at this path</strong>
            <span className="muted">Keeper is watching it: it appears here live if it is created.</span>
          </Callout>
        ))}
      {content && (
        <div className="node-panel__content">
          <DataViewer key={path} data={content.data} />
          <div className="node-panel__side">
            <StatTable ensemble={ensemble} stat={content.stat} consoleSessionId={consoleSessionId} />
            {!deleted && <AclPanel ensemble={ensemble} path={path} />}
          </div>
        </div>
      )}
    </div>
  );
}
