/**
 * For a share-link holder, a calm line in the frame saying what the link reaches, so nobody
 * mistakes a scoped view for the whole console (the server refuses the rest either way).
 */
import { useMe } from '../../app/me';
import { holderBanner } from './shareLinks';
import './share.css';

export function ShareHolderBanner() {
  const scope = useMe().data?.shareLink?.scope;
  if (!scope) return null;
  return (
    <p className="share-holder-banner" role="status" aria-label="Shared view">
      {holderBanner(scope)}
    </p>
  );
}
