/** The full znode stat, in ZooKeeper's own field names, zxids and session ids in hex. */
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { ZnodeStat } from '@keeper/shared';
import { formatBytes, formatCount } from '../../lib/bytes';
import { toHexId, zxidParts } from '../../lib/zxid';
import { RelativeTime } from '../../ui/RelativeTime';
import { sessionUrl } from '../../app/urls/sessionUrls';

/**
 * ZooKeeper's own nodes (the root, /zookeeper) carry 0 as their times: the epoch, not a date
 * anyone set. Shown as "—" rather than "20780 d ago".
 */
function StatTime({ at }: { at: number }) {
  if (at <= 0)
    return (
      <span className="muted" title="0: made by ZooKeeper itself, with no time recorded">
        —
      </span>
    );
  return <RelativeTime at={at} />;
}

function Zxid({ value }: { value: string }) {
  const hex = toHexId(value);
  const parts = zxidParts(value);
  return (
    <span className="mono" title={parts ? `epoch ${parts.epoch}, counter ${parts.counter}` : undefined}>
      {hex}
    </span>
  );
}

function Row({ name, hint, children }: { name: string; hint: string; children: ReactNode }) {
  return (
    <div role="row" className="stat__row">
      <span role="rowheader" className="stat__name mono" title={hint}>
        {name}
      </span>
      <span role="cell" className="stat__value">
        {children}
      </span>
    </div>
  );
}

export function StatTable({ ensemble, stat, consoleSessionId }: { ensemble: string; stat: ZnodeStat; consoleSessionId: string | null }) {
  const owner = toHexId(stat.ephemeralOwner);
  const persistent = owner === '0x0';
  const ownedByConsole = !persistent && consoleSessionId !== null && toHexId(consoleSessionId) === owner;
  return (
    // ARIA table roles on divs: one name/value per row for readers and tests, any layout for the eye.
    <div role="table" aria-label="Znode stat" className="stat">
      <div role="rowgroup" className="stat__grid">
        <Row name="version" hint="data version: bumps on every setData">
          <span className="mono">{stat.version}</span>
        </Row>
        <Row name="cversion" hint="children version: bumps on every child create or delete">
          <span className="mono">{stat.cversion}</span>
        </Row>
        <Row name="aversion" hint="ACL version">
          <span className="mono">{stat.aversion}</span>
        </Row>
        <Row name="mtime" hint="last modified">
          <StatTime at={stat.mtime} />
        </Row>
        <Row name="ctime" hint="created">
          <StatTime at={stat.ctime} />
        </Row>
        <Row name="mzxid" hint="zxid of the last data change">
          <Zxid value={stat.mzxid} />
        </Row>
        <Row name="czxid" hint="zxid of the create">
          <Zxid value={stat.czxid} />
        </Row>
        <Row name="pzxid" hint="zxid of the last children change">
          <Zxid value={stat.pzxid} />
        </Row>
        <Row name="ephemeralOwner" hint="the session that owns an ephemeral node; 0x0 for persistent nodes">
          {persistent ? (
            <span className="muted">persistent</span>
          ) : (
            <span>
              <Link className="mono link" to={sessionUrl(ensemble, owner)} title={`Open session ${owner}`}>
                {owner}
              </Link>{' '}
              <span className="muted">ephemeral{ownedByConsole ? ' · this console' : ''}</span>
            </span>
          )}
        </Row>
        <Row name="dataLength" hint="bytes of data">
          <span className="mono" title={`${formatCount(stat.dataLength)} bytes`}>
            {formatBytes(stat.dataLength)}
          </span>
        </Row>
        <Row name="numChildren" hint="number of children">
          <span className="mono">{formatCount(stat.numChildren)}</span>
        </Row>
      </div>
    </div>
  );
}
