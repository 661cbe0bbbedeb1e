/** Past (and current) resizes of the ensemble, newest first, each linking to itself: GET .../reconfig, read again when the live one changes state. */
import { Link } from 'react-router-dom';
import { resizeUrl } from '../../../app/urls/ensembleUrls';
import { errorText } from '../../../lib/api';
import { formatAbsolute, formatClock } from '../../../lib/time';
import { useReconfigHistory } from './resizeApi';
import { RESIZE_TONE, shortId, stateWord, stepsDone } from './resizeWords';

export function ResizeHistory({ ensemble, shownId }: { ensemble: string; shownId: string | null }) {
  const query = useReconfigHistory(ensemble);
  return (
    <section className="resize-history" aria-label="Resize history">
      <h2 className="section-title">History</h2>
      {query.isError ? (
        <p className="error-note" role="alert">
          <span className="status tone-lost">cannot list resizes</span> {errorText(query.error)}
        </p>
      ) : !query.data ? (
        <p className="note" aria-busy="true">
          Reading the history…
        </p>
      ) : query.data.reconfigs.length === 0 ? (
        <p className="note">No resize yet.</p>
      ) : (
        <div className="resize-history__scroll">
          <table className="data-table" aria-label="Resizes">
            <thead>
              <tr>
                <th scope="col">State</th>
                <th scope="col">Resize</th>
                <th scope="col">Planned</th>
                <th scope="col">Size</th>
                <th scope="col">Steps</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {query.data.reconfigs.map((wf) => (
                <tr key={wf.id} aria-current={wf.id === shownId ? 'true' : undefined}>
                  <td>
                    <span className={`status tone-${RESIZE_TONE[wf.state]}`}>{stateWord(wf)}</span>
                  </td>
                  <td className="mono">
                    <Link to={resizeUrl(ensemble, wf.id)}>{shortId(wf.id)}</Link>
                  </td>
                  <td>
                    <time dateTime={new Date(wf.createdAt).toISOString()} title={formatAbsolute(wf.createdAt)}>
                      {new Date(wf.createdAt).toISOString().slice(0, 10)} {formatClock(wf.createdAt)}
                    </time>
                  </td>
                  <td>{wf.sizeSentence}</td>
                  <td className="num">
                    {stepsDone(wf)}/{wf.steps.length}
                  </td>
                  <td>{wf.createdBy ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
