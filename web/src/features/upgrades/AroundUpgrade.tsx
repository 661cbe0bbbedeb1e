/**
 * Beside the timelines: where Keeper's own session is and each move it made (an upgrade moves it
 * off each restarting member), whether it expired (it should not), and the clients connected to
 * the members being worked on now, from the poller's connection counts; and every client's
 * sessions the ensemble expired, from the leader's counter.
 */
import { expiriesSentence, memberLabel, type ConsoleSessionSnapshot, type EnsembleHealth, type UpgradeAnswer, type UpgradeStep } from '@keeper/shared';
import { formatAbsolute, formatClock } from '../../lib/time';
import { plural } from '../../ui/format';
import { connectionsOn, consoleMoves } from './aroundUpgrade';

export function AroundUpgrade({
  upgrade,
  current,
  health,
  session,
}: {
  upgrade: UpgradeAnswer;
  current: readonly UpgradeStep[];
  health: EnsembleHealth | undefined;
  session: ConsoleSessionSnapshot | undefined;
}) {
  if (upgrade.startedAt === null || (!session && !health)) return null;
  const keeper = session && consoleMoves(session, upgrade.startedAt, upgrade.finishedAt);
  const expiries = upgrade.sessionExpiries;
  // A killed Keeper's own session expires on its own: counted apart by the server, never a client's.
  const clientExpiries = expiries.count - Math.min(expiries.keeper, expiries.count);
  return (
    <ul className="upgrade-around" aria-label="Clients during the upgrade">
      {keeper && (
        <li>
          Keeper’s own session:{' '}
          {keeper.now ? (
            <>
              on <span className="mono">{keeper.now}</span>
            </>
          ) : (
            'not connected'
          )}
          {keeper.moves.map((m) => (
            <span key={m.at}>
              {' '}
              · moved from <span className="mono">{m.from}</span> to <span className="mono">{m.to}</span> at{' '}
              <time dateTime={new Date(m.at).toISOString()} title={formatAbsolute(m.at)}>
                {formatClock(m.at)}
              </time>
            </span>
          ))}
          {' · '}
          <span className={`status tone-${keeper.expiries === 0 ? 'live' : 'lost'}`}>
            {keeper.expiries === 0 ? 'no expiry since the start' : `${plural(keeper.expiries, 'expiry', 'expiries')} since the start`}
          </span>
        </li>
      )}
      <li>
        <span className={`status tone-${expiries.leader === null ? 'stale' : clientExpiries === 0 ? 'live' : 'lost'}`}>{expiriesSentence(expiries)}</span>
      </li>
      {health &&
        current.map((step) => {
          const n = connectionsOn(health, step.address);
          return (
            <li key={step.address}>
              Clients on {memberLabel(step)} (<span className="mono">{step.address}</span>): {n === null ? 'not reported' : plural(n, 'connection')}
              {step.state === 'restarting' || step.state === 'wentDown' ? ', moving to the other members' : ''}
            </li>
          );
        })}
    </ul>
  );
}
