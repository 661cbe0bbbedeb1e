import { Fragment } from 'react';
import { Link } from 'react-router-dom';
import { baseName, pathLineage } from '@keeper/shared';
import { useZnodeEntry } from '../../socket/hooks';
import { AsOf } from '../freshness/AsOf';
import { useFreshness } from '../freshness/useFreshness';
import { CopyButton } from '../../ui/CopyButton';
import { TreeIcon } from '../../ui/icons';
import { znodeUrl } from './urls';
import { ZnodeActions } from './ZnodeActions';

/** Breadcrumb of the selected path (each ancestor a link), copy, and whether what follows is live. */
export function ZnodeHeader({ ensemble, path, onOpenTree }: { ensemble: string; path: string; onOpenTree: () => void }) {
  const entry = useZnodeEntry(ensemble, path);
  const freshness = useFreshness(ensemble, entry?.epoch);
  const lineage = pathLineage(path);
  return (
    <header className="znode-header">
      <button type="button" className="btn btn--icon znode-header__tree" aria-label="Show tree" onClick={onOpenTree}>
        <TreeIcon />
      </button>
      <nav aria-label="Breadcrumb" className="breadcrumb mono">
        <ol>
          {lineage.map((p, i) => {
            const last = i === lineage.length - 1;
            const label = p === '/' ? '/' : baseName(p);
            return (
              <Fragment key={p}>
                {i > 1 && (
                  <li className="breadcrumb__sep" aria-hidden="true">
                    /
                  </li>
                )}
                <li>
                  {last ? (
                    <span aria-current="page" className="breadcrumb__current">
                      {label}
                    </span>
                  ) : (
                    <Link to={znodeUrl(ensemble, p)} className="breadcrumb__link">
                      {label}
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
      {freshness.live ? (
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
