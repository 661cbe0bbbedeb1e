/** "Share read-only link" in the top bar: admins only, on every page a viewer could see. */
import { useState } from 'react';
import { useLocation } from 'react-router-dom';
import { useIsAdmin } from '../../app/me';
import { ShareIcon } from './icons';
import { isAdminOnlyPage, sharablePath } from './shareLinks';
import { lazyNamed } from '../../lib/lazyNamed';
import { LazyPart, useOpenedOnce } from '../../ui/LazyPart';

const ShareDialog = lazyNamed(() => import('./ShareDialog'), 'ShareDialog');

export function ShareButton() {
  const admin = useIsAdmin();
  const location = useLocation();
  const [open, setOpen] = useState(false);
  // The path is taken when the dialog opens, so a live page changing under it does not move the link.
  const [path, setPath] = useState('');
  const opened = useOpenedOnce(open);
  if (!admin || isAdminOnlyPage(location.pathname)) return null;
  return (
    <>
      <button
        type="button"
        className="btn btn--outline topbar__share"
        aria-label="Share read-only link"
        title="Share a read-only link to this page"
        onClick={() => {
          setPath(sharablePath(location.pathname, location.search));
          setOpen(true);
        }}
      >
        <ShareIcon />
        <span className="topbar__share-label">Share</span>
      </button>
      {opened && (
        <LazyPart>
          <ShareDialog open={open} path={path} onClose={() => setOpen(false)} />
        </LazyPart>
      )}
    </>
  );
}
