/**
 * The selected znode's ACL, for everyone (reading it is open to viewers); admins also get Edit.
 * Read over HTTP and read again whenever the live stat shows a new ACL version (aversion).
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ACL_SCHEMES, type AclEntryView } from '@keeper/shared';
import { errorText } from '../../../lib/api';
import { useZnodeEntry } from '../znodeTopic';
import { useIsAdmin } from '../../../app/me';
import { LockIcon } from '../../../ui/icons';
import { getAcl } from '../ops/opsApi';
import { lazyNamed } from '../../../lib/lazyNamed';
import { LazyPart, useOpenedOnce } from '../../../ui/LazyPart';
import { PERMISSIONS, unknownSchemes } from './aclModel';
import { useFreshness } from '../../../app/freshness/useFreshness';
import { writesPausedReason } from '../../../app/freshness/freshness';
import './acl.css';

// Its code arrives when an admin first edits an ACL.
const AclEditDialog = lazyNamed(() => import('./AclEditDialog'), 'AclEditDialog');

export const aclQueryKey = (ensemble: string, path: string, aversion: number | null) => ['ensembles', ensemble, 'acl', path, aversion] as const;

export function AclPanel({ ensemble, path }: { ensemble: string; path: string }) {
  const entry = useZnodeEntry(ensemble, path);
  const aversion = entry?.node.exists ? entry.node.stat.aversion : null;
  const admin = useIsAdmin();
  // An ACL change is a write: paused, with the reason, while the session is not live (read-only included).
  const paused = writesPausedReason(useFreshness(ensemble, entry?.epoch));
  const [editing, setEditing] = useState(false);
  const opened = useOpenedOnce(editing);
  const acl = useQuery({
    queryKey: aclQueryKey(ensemble, path, aversion),
    queryFn: () => getAcl(ensemble, path),
    enabled: aversion !== null,
    staleTime: Infinity,
  });
  if (aversion === null) return null;
  const foreign = acl.data ? unknownSchemes(acl.data.acl) : [];

  return (
    <section className="acl" aria-label="Znode ACL">
      <header className="acl__head">
        <LockIcon size={14} className="acl__icon" />
        <h2 className="section-title">ACL</h2>
        <span className="acl__version muted mono" title="ACL version (aversion)">
          v{aversion}
        </span>
        <span className="acl__spacer" />
        {admin && acl.data && foreign.length > 0 && (
          <span className="muted acl__note" title={`This editor knows ${ACL_SCHEMES.join(', ')}; edit this ACL with zkCli`}>
            {foreign.join(', ')}: edit with zkCli
          </span>
        )}
        {admin && acl.data && foreign.length === 0 && (
          <button type="button" className="btn btn--small" onClick={() => setEditing(true)} disabled={paused !== null} title={paused ?? undefined}>
            Edit ACL
          </button>
        )}
      </header>
      {acl.error ? (
        <p className="acl__error">
          <span className="status tone-lost">cannot read</span> {errorText(acl.error)}
        </p>
      ) : !acl.data ? (
        <p className="muted acl__loading">reading…</p>
      ) : (
        <ul className="acl__list" role="list">
          {acl.data.acl.map((e) => (
            <AclLine key={`${e.scheme}:${e.id}`} entry={e} />
          ))}
        </ul>
      )}
      {admin && acl.data && opened && (
        <LazyPart>
          <AclEditDialog ensemble={ensemble} path={path} open={editing} current={acl.data} onClose={() => setEditing(false)} />
        </LazyPart>
      )}
    </section>
  );
}

function AclLine({ entry }: { entry: AclEntryView }) {
  const label = PERMISSIONS.filter((p) => entry.perms.includes(p.letter))
    .map((p) => p.name)
    .join(', ');
  return (
    <li className="acl__entry">
      <span className="acl__who mono" title={`${entry.scheme}:${entry.id}`}>
        <span className="muted">{entry.scheme}:</span>
        {entry.id}
      </span>
      <span className="acl__perms mono" aria-label={label === '' ? 'no permissions' : label} title={label}>
        {PERMISSIONS.map((p) => (
          <span key={p.letter} className={entry.perms.includes(p.letter) ? 'is-on' : 'is-off'} aria-hidden="true">
            {entry.perms.includes(p.letter) ? p.letter : '·'}
          </span>
        ))}
      </span>
    </li>
  );
}
