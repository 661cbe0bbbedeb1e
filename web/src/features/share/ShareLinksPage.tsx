/**
 * /audit/share-links: every read-only link, active ones first, with what it opens, who made it,
 * when it ends, how many pages have it open right now, and Revoke (open pages close at once).
 */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { describeScope, type ShareLinkView } from '@keeper/shared';
import { errorText } from '../../lib/api';
import { formatCount } from '../../lib/bytes';
import { formatAbsolute, formatDuration } from '../../lib/time';
import { useNow } from '../../lib/useNow';
import { RelativeTime } from '../../ui/RelativeTime';
import { AdminArea } from '../../app/AdminArea';
import { linkState, listShareLinks, revokeShareLink, shareLinksQueryKey, sortLinks } from './shareLinks';
import { Callout } from '../../ui/Callout';
import '../../ui/forms.css';
import '../../ui/table.css';
import './share.css';

export function ShareLinksPage() {
  const now = useNow();
  const links = useQuery({ queryKey: shareLinksQueryKey, queryFn: listShareLinks, staleTime: 0, refetchInterval: 30_000 });
  const rows = sortLinks(links.data ?? [], now);
  const active = rows.filter((l) => linkState(l, now).tone !== 'stale').length;
  return (
    <AdminArea
      title="Share links"
      meta={links.data ? `${formatCount(active)} active · ${formatCount(rows.length)} in all` : 'loading…'}
      aside={
        <button type="button" className="btn btn--outline" onClick={() => void links.refetch()} disabled={links.isFetching}>
          {links.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      }
    >
      <p className="links-intro muted">
        Made with “Share read-only link” on any page. A link signs its holder in as a viewer until it expires or is revoked; revoking closes their open pages at
        once.
      </p>
      {links.error && (
        <Callout tone="lost" role="alert" className="links-error">
          <strong>Cannot list share links</strong>
          <p>{errorText(links.error)}</p>
        </Callout>
      )}
      <div className="links-scroll">
        <table className="data-table links-table" aria-label="Share links">
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Opens · reaches</th>
              <th scope="col">Note</th>
              <th scope="col">Made by</th>
              <th scope="col">Ends</th>
              <th scope="col" className="num">
                Open now
              </th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((link) => (
              <LinkRow key={link.id} link={link} now={now} />
            ))}
          </tbody>
        </table>
        {links.data && rows.length === 0 && <p className="muted links-empty">No share links yet.</p>}
      </div>
    </AdminArea>
  );
}

function LinkRow({ link, now }: { link: ShareLinkView; now: number }) {
  const state = linkState(link, now);
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation({
    mutationFn: () => revokeShareLink(link.id),
    onSuccess: () => {
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: shareLinksQueryKey });
    },
  });
  const ended = state.tone === 'stale';
  return (
    <tr className={ended ? 'is-ended' : ''}>
      <td className={`tone-${state.tone}`}>
        <span className="status">{state.word}</span>
      </td>
      <td className="mono links-path">
        <Link className="link" to={link.path} title={link.path}>
          {link.path}
        </Link>
        <span className="links-scope muted">reaches {describeScope(link.scope)}</span>
      </td>
      <td className="links-note">{link.note ?? <span className="muted">—</span>}</td>
      <td>
        {link.createdBy} <RelativeTime at={link.createdAt} className="muted" />
      </td>
      <td title={formatAbsolute(link.revokedAt ?? link.expiresAt)}>
        {link.revokedAt !== undefined ? (
          <>
            revoked <RelativeTime at={link.revokedAt} />
          </>
        ) : link.expiresAt > now ? (
          `in ${formatDuration(link.expiresAt - now)}`
        ) : (
          <>
            expired <RelativeTime at={link.expiresAt} />
          </>
        )}
      </td>
      <td className="num mono">{ended ? <span className="muted">—</span> : formatCount(link.activeSockets ?? 0)}</td>
      <td>
        <div className="links-actions">
          <Link className="btn btn--small" to={`/audit?q=${encodeURIComponent(link.id)}`} title="This link's entries in the audit trail: made, opened, revoked">
            Uses
          </Link>
          {!ended &&
            (confirming ? (
              <>
                <button type="button" className="btn btn--danger btn--small" onClick={() => revoke.mutate()} disabled={revoke.isPending} autoFocus>
                  {revoke.isPending ? 'Revoking…' : (link.activeSockets ?? 0) > 0 ? `Revoke and close ${link.activeSockets} open` : 'Revoke now'}
                </button>
                <button type="button" className="btn btn--small" onClick={() => setConfirming(false)}>
                  Keep
                </button>
              </>
            ) : (
              <button type="button" className="btn btn--outline btn--small" onClick={() => setConfirming(true)} aria-label={`Revoke link to ${link.path}`}>
                Revoke
              </button>
            ))}
          {revoke.error && (
            <span className="field__error" role="alert">
              {errorText(revoke.error)}
            </span>
          )}
        </div>
      </td>
    </tr>
  );
}
