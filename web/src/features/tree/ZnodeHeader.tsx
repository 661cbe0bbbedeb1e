import { Fragment } from 'react';
import { Link } from 'react-router-dom';
import { baseName, pathLineage } from '@keeper/shared';
import { useSubscriptionError, useZnodeEntry } from './znodeTopic';
import { AsOf } from '../../app/freshness/AsOf';
import { useFreshness } from '../../app/freshness/useFreshness';
import { CopyButton } from '../../ui/CopyButton';
import { TreeIcon } from '../../ui/icons';
import { escapeHiddenChars } from '../../lib/invisibleChars';
import { znodeUrl } from '../../app/urls/treeUrls';
import { ZnodeActions } from './ZnodeActions';
import { Escaped } from './ZnodeName';
import { readFailureOf } from './readFailure';

/**
 * Breadcrumb of the selected path (each ancestor a link), copy, and whether what follows is live.
 * Names show their hidden characters escaped. On a phone the ancestors between the root and the
 * parent fold into "…" (the root and the parent stay links) and the node's own name is never cut:
 * it wraps.
 */
export function ZnodeHeader({ ensemble, path, onOpenTree }: { ensemble: string; path: string; onOpenTree: () => void }) {
  const entry = useZnodeEntry(ensemble, path);
  const freshness = useFreshness(ensemble, entry?.epoch);
  const lineage = pathLineage(path);
  // Not readable: nothing on the page follows it live, whatever the connection.
  const failure = readFailureOf(useSubscriptionError(ensemble, path));
  const noAuth = entry === undefined && failure?.kind === 'noAuth';
  return (
    <header className="znode-header">
      <button type="button" className="btn btn--icon znode-header__tree" aria-label="Show tree" onClick={onOpenTree}>
        <TreeIcon />
      </button>
      <nav aria-label="Breadcrumb" className="breadcrumb mono" title={escapeHiddenChars(path)}>
        <ol>
          {lineage.map((p, i) => {
            const last = i === lineage.length - 1;
            const label = p === '/' ? '/' : baseName(p);
            // Between the root and the parent: folded on a phone.
            const middle = i > 0 && i < lineage.length - 2;
            return (
              <Fragment key={p}>
                {i === 1 && lineage.length > 3 && (
                  // The separator before the parent follows it: "/…/parent/name".
                  <li className="breadcrumb__fold" aria-hidden="true">
                    …
                  </li>
                )}
                {i > 1 && (
                  <li className={`breadcrumb__sep${i < lineage.length - 2 ? ' breadcrumb__middle' : ''}`} aria-hidden="true">
                    /
                  </li>
                )}
                <li className={middle ? 'breadcrumb__middle' : last ? 'breadcrumb__last' : undefined}>
                  {last ? (
                    <span aria-current="page" className="breadcrumb__current">
                      <Escaped text={label} />
                    </span>
                  ) : (
                    <Link to={znodeUrl(ensemble, p)} className="breadcrumb__link">
                      <Escaped text={label} />
                    </Link>
                  )}
                </li>
              </Fragment>
            );
          })}
        </ol>
      </nav>
      <CopyButton text={path} label="Copy path" />
      <span className="znode-header__spacer" />
      <ZnodeActions ensemble={ensemble} path={path} />
      {noAuth ? (
        <span className="status tone-degraded znode-header__live" title="ZooKeeper refuses the console READ on this node: nothing here is live">
          no read access
        </span>
      ) : freshness.live ? (
        <span className="status tone-live znode-header__live" title="Changes appear here as they happen">
          live
        </span>
      ) : (
        // Nothing read yet: there is no "as of" time to give, only the reason.
        <AsOf freshness={entry === undefined ? { ...freshness, asOf: null } : freshness} />
      )}
    </header>
  );
}
