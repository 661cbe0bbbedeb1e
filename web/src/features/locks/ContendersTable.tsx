/**
 * A lock's contenders in the recipe's order (by sequence, never by name). One dense line each,
 * what matters first (status, flags, how long, what it waits for); under it, the consequence when
 * something is wrong. Enter or a click on a row opens it: its whole wait chain, each flag's
 * sentence, what its owner watches, its member and data. Admins get Delete, kept in view at the
 * right edge, on the rows it is meant for: leaked and persistent nodes, and (with the name typed)
 * a holder. Under about 1,500 px of table the member and data columns give way (they stay in the
 * opened row), so that at a laptop's 1,400 px the sticky Delete lies over no column.
 */
import { Fragment, useState } from 'react';
import { Link } from 'react-router-dom';
import { baseName, shortName, type Contender } from '@keeper/shared';
import { useNow } from '../../lib/useNow';
import { duration, NONE } from '../../ui/format';
import { sessionUrl } from '../../app/urls/sessionUrls';
import { DeleteContenderDialog } from './DeleteContenderDialog';
import { FlagBadges, StatusBadge } from './StatusBadge';
import { dataText, deleteMode, FLAG_LABEL, lastResponseWords, timeInPlace } from './lockWords';

const WATCHING_WORDS = {
  blocker: 'its owner watches what it waits for',
  elsewhere: 'its owner watches another node of this lock (not the usual watch)',
  nothing: 'the latest gathering saw no watch of its owner in this lock: a leak candidate until a second gathering confirms it',
  unknown: 'no usable watch gathering yet for its owner',
} as const;

/** What a share link without the ensemble views sees instead of owners and addresses. */
const HIDDEN = 'hidden';
const HIDDEN_TITLE = 'This share link was not given the ensemble views: owner sessions and client and member addresses are not shown';

export function ContendersTable({
  ensemble,
  contenders,
  admin,
  live,
  asOf,
}: {
  ensemble: string;
  contenders: readonly Contender[];
  admin: boolean;
  live: boolean;
  /** When the data was computed: durations stop there while it is not live. */
  asOf: number;
}) {
  const ticking = useNow();
  const now = live ? Math.max(ticking, asOf) : asOf;
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [deleting, setDeleting] = useState<Contender | null>(null);
  const toggle = (path: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (!next.delete(path)) next.add(path);
      return next;
    });
  // An exclusive lock's nodes are all plain contenders: the column would say nothing.
  const showRole = contenders.some((c) => c.role !== 'contender');
  const positionOf = new Map(contenders.map((c) => [c.path, c.position]));
  const columns = 12 + (showRole ? 1 : 0) + (admin ? 1 : 0);
  return (
    <div className="locks__scroll">
      <table className="data-table contenders" aria-label="Contenders">
        <thead>
          <tr>
            <th scope="col" className="num">
              #
            </th>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Flags</th>
            <th scope="col">Held / waiting</th>
            <th scope="col">Waits for</th>
            <th scope="col">Owner session</th>
            <th scope="col">Client</th>
            <th scope="col" className="contender__wide">
              Member
            </th>
            <th scope="col">Timeout</th>
            <th scope="col">Last response</th>
            <th scope="col" className="contender__wide">
              Data
            </th>
            {showRole && <th scope="col">Role</th>}
            {admin && (
              <th scope="col" className="contender__actions">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {contenders.map((c) => {
            const expanded = open.has(c.path);
            const mode = deleteMode(c);
            const time = timeInPlace(c, now);
            const lastResponse = lastResponseWords(c.owner);
            const hidden = c.owner !== null && c.owner.sessionId === null;
            return (
              <Fragment key={c.path}>
                <tr
                  tabIndex={0}
                  className={`contender${expanded ? ' is-expanded' : ''}`}
                  data-status={c.status}
                  aria-expanded={expanded}
                  onClick={(e) => {
                    if (!(e.target instanceof Element && e.target.closest('a, button'))) toggle(c.path);
                  }}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' && e.target === e.currentTarget) toggle(c.path);
                  }}
                >
                  <td className="num">{c.position}</td>
                  <td className="mono contender__name" title={c.name}>
                    {shortName(c.name)}
                  </td>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>
                    <FlagBadges flags={c.flags} />
                  </td>
                  <td className="contender__time" title={time.title}>
                    {time.text}
                  </td>
                  <td className="mono contender__waits" title={c.waitsFor?.text}>
                    {c.waitsFor ? `→ ${positionOf.has(c.waitsFor.next) ? `#${positionOf.get(c.waitsFor.next)}` : shortName(baseName(c.waitsFor.next))}` : NONE}
                  </td>
                  <td className="mono">
                    <Owner ensemble={ensemble} contender={c} />
                  </td>
                  <td className="mono">
                    {hidden ? (
                      <span className="muted" title={HIDDEN_TITLE}>
                        {HIDDEN}
                      </span>
                    ) : (
                      (c.owner?.client ?? NONE)
                    )}
                    {c.owner?.connected === false && <span className="contender__warn"> no connection</span>}
                  </td>
                  <td className="mono contender__wide">
                    {hidden ? (
                      <span className="muted" title={HIDDEN_TITLE}>
                        {HIDDEN}
                      </span>
                    ) : (
                      (c.owner?.member ?? NONE)
                    )}
                  </td>
                  <td>{duration(c.owner?.timeoutMs)}</td>
                  <td className="contender__lresp" title={lastResponse.title}>
                    {lastResponse.text}
                  </td>
                  <td className="contender__data contender__wide" title={dataText(c).kind}>
                    {dataText(c).text}
                  </td>
                  {showRole && <td>{c.role}</td>}
                  {admin && (
                    <td className="contender__actions">
                      {mode !== 'none' && (
                        <button
                          type="button"
                          className="btn btn--outline btn--small"
                          disabled={!live}
                          title={live ? undefined : 'Not while the data is not live'}
                          aria-label={`Delete ${c.name}`}
                          onClick={() => setDeleting(c)}
                        >
                          Delete…
                        </button>
                      )}
                    </td>
                  )}
                </tr>
                {(c.consequence || expanded) && (
                  <tr className={`contender__more${expanded ? ' is-expanded' : ''}`}>
                    <td />
                    <td colSpan={columns - 1}>
                      {c.consequence && <p className={`contender__consequence tone-${c.status === 'leaked' ? 'lost' : 'degraded'}`}>{c.consequence}</p>}
                      {expanded && <ContenderMore contender={c} />}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {deleting && <DeleteContenderDialog ensemble={ensemble} contender={deleting} onClose={() => setDeleting(null)} />}
    </div>
  );
}

function Owner({ ensemble, contender }: { ensemble: string; contender: Contender }) {
  const owner = contender.owner;
  if (!owner) return <span className="muted">none (persistent)</span>;
  if (owner.sessionId === null) {
    return (
      <span className="muted" title={HIDDEN_TITLE}>
        {HIDDEN}
      </span>
    );
  }
  return (
    <>
      <Link to={sessionUrl(ensemble, owner.sessionId)} title="Open this session in the sessions view">
        {owner.sessionId}
      </Link>
      {!owner.known && (
        <span className="muted" title="The sessions data does not list it: not gathered yet, or the session just ended">
          {' '}
          ?
        </span>
      )}
    </>
  );
}

function ContenderMore({ contender: c }: { contender: Contender }) {
  return (
    <div className="contender__details">
      <p className="mono">{c.path}</p>
      {c.waitsFor && <p className="mono contender__chain">{c.waitsFor.text}</p>}
      {c.owner?.member && <p className="muted">Member {c.owner.member}</p>}
      <p className="muted">
        Data ({dataText(c).kind}) {dataText(c).text}
      </p>
      {c.flags.length > 0 && (
        <ul className="contender__flagmsgs">
          {c.flags.map((f) => (
            <li key={f.kind}>
              <span className="badge tone-degraded">{FLAG_LABEL[f.kind]}</span> {f.message}
            </li>
          ))}
        </ul>
      )}
      {c.watching && <p className="muted">Watching: {WATCHING_WORDS[c.watching]}.</p>}
      {c.sequence !== null && <p className="muted">Sequence {c.sequence}</p>}
    </div>
  );
}
