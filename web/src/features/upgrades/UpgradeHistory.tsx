/** Past (and current) upgrades of the ensemble, newest first: GET .../upgrades, read again when the live one changes state. */
import type { UpgradeSummary } from '@keeper/shared';
import { formatAbsolute, formatClock, formatDuration } from '../../lib/time';
import { errorText } from '../../lib/api';
import { useUpgradeHistory } from './upgradesApi';
import { UPGRADE_TONE, upgradeWord } from './upgradeWords';

function When({ at }: { at: number }) {
  const d = new Date(at);
  return (
    <time dateTime={d.toISOString()} title={formatAbsolute(at)}>
      {d.toISOString().slice(0, 10)} {formatClock(at)}
    </time>
  );
}

export function UpgradeHistory({ ensemble }: { ensemble: string }) {
  const query = useUpgradeHistory(ensemble);
  return (
    <section className="upgrade-history" aria-label="History">
      <h2 className="section-title">History</h2>
      {query.isError ? (
        <p className="error-note" role="alert">
          <span className="status tone-lost">cannot list upgrades</span> {errorText(query.error)}
        </p>
      ) : !query.data ? (
        <p className="note" aria-busy="true">
          Reading the history…
        </p>
      ) : query.data.upgrades.length === 0 ? (
        <p className="note">No upgrade or rolling restart yet.</p>
      ) : (
        <div className="upgrade-history__scroll">
          <table className="data-table upgrade-history__table" aria-label="Upgrades">
            <thead>
              <tr>
                <th scope="col">State</th>
                <th scope="col">Planned</th>
                <th scope="col">Mode</th>
                <th scope="col" className="num">
                  Members
                </th>
                <th scope="col">Took</th>
                <th scope="col">By</th>
                <th scope="col">Target, note or reason</th>
              </tr>
            </thead>
            <tbody>
              {query.data.upgrades.map((u) => (
                <HistoryRow key={u.id} upgrade={u} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function HistoryRow({ upgrade: u }: { upgrade: UpgradeSummary }) {
  const took = u.startedAt !== null && u.finishedAt !== null ? formatDuration(u.finishedAt - u.startedAt) : '—';
  const about = [u.targetVersion && `to ${u.targetVersion}`, u.note, u.state !== 'done' && u.reason].filter(Boolean).join(' · ');
  return (
    <tr>
      <td>
        <span className={`status tone-${UPGRADE_TONE[u.state]}`}>{upgradeWord(u)}</span>
      </td>
      <td className="mono">
        <When at={u.createdAt} />
      </td>
      <td>{u.mode}</td>
      <td className="num">
        {u.stepsDone} of {u.steps}
      </td>
      <td>{took}</td>
      <td>{u.createdBy ?? '—'}</td>
      <td className="upgrade-history__about">{about || '—'}</td>
    </tr>
  );
}
