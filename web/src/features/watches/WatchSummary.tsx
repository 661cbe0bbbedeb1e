/** wchs per member: connections with watches, watched paths, watches; members that could not answer say why. */
import { Link } from 'react-router-dom';
import type { WatchesAnswer } from '@keeper/shared';
import { count } from '../../ui/format';
import { memberUrl } from '../../app/urls/ensembleUrls';
import { totals } from './watchFigures';

export function WatchSummary({
  ensemble,
  summary,
  distinctPaths,
}: {
  ensemble: string;
  summary: WatchesAnswer['summary'];
  /** Distinct paths over every member, from a complete wchp; undefined when unknown. */
  distinctPaths: number | undefined;
}) {
  const sum = totals(summary);
  return (
    <div className="wtable-wrap">
      <table className="data-table wtable" aria-label="Watches per member">
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col" className="num" title="connections that hold at least one watch">
              Connections
            </th>
            <th scope="col" className="num">
              Watched paths
            </th>
            <th scope="col" className="num">
              Watches
            </th>
            <th scope="col" className="wtable__note-col">
              <span className="visually-hidden">Note</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {summary.map((r) => (
            <tr key={r.member}>
              <th scope="row">
                <Link className="mono link" to={memberUrl(ensemble, r.member)}>
                  {r.member}
                </Link>
              </th>
              <td className="num mono">{count(r.connections)}</td>
              <td className="num mono">{count(r.paths)}</td>
              <td className="num mono">{count(r.watches)}</td>
              <td className="wtable__note-col">
                {r.error && (
                  <span className="wtable__error tone-stale">
                    <span className="status">no answer</span> {r.error}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
        {summary.length > 1 && (
          <tfoot>
            <tr>
              <th scope="row">All members{sum.partial ? ' (at least)' : ''}</th>
              <td className="num mono">{count(sum.connections)}</td>
              <td className="num mono" title="the sum over members: a path watched through several members counts once per member">
                {count(sum.paths)}
                {distinctPaths !== undefined && (
                  <span className="wtable__distinct" title="distinct paths over every member, from the last wchp">
                    {count(distinctPaths)} distinct
                  </span>
                )}
              </td>
              <td className="num mono">{count(sum.watches)}</td>
              <td />
            </tr>
          </tfoot>
        )}
      </table>
    </div>
  );
}
