/**
 * The `znode` topic's binding as the socket drives it: server batches go through the topic
 * registry into the path's cache entry, and watch events reach the log's tap.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { ServerEvent, ZnodeEvent } from '@keeper/shared';
import { applyRefusal, applyServerEvents, markReleased } from '../../socket/applyServerEvents';
import { RELEASED_EPOCH } from '../../socket/topicRegistry';
import { watchEventStore } from './watchEvents/watchEventStore';
import { znodeQueryKey, type ZnodeTopicEntry } from './znodeTopic';

const stat = {
  czxid: '0x1',
  mzxid: '0x2',
  pzxid: '0x3',
  ctime: 1,
  mtime: 2,
  version: 4,
  cversion: 0,
  aversion: 0,
  ephemeralOwner: '0x0',
  dataLength: 2,
  numChildren: 1,
};
const on = (path: string, event: ZnodeEvent, ensemble = 'prod'): ServerEvent => ({ topic: 'znode', ensemble, params: { path }, event });

const client = new QueryClient();
const entry = (path: string, ensemble = 'prod') => client.getQueryData<ZnodeTopicEntry>(znodeQueryKey(ensemble, path));

afterEach(() => client.clear());

describe('the znode topic in the query cache', () => {
  it("folds state, children and errors of a batch into each path's entry, tagged with the connection", () => {
    applyServerEvents(
      client,
      [
        on('/a', { kind: 'state', node: { exists: true, stat, data: { encoding: 'utf8', value: 'hi', size: 2, truncated: false } }, at: 10 }),
        on('/a', { kind: 'children', mode: 'full', names: ['n-10', 'n-2'], total: 2 }),
        on('/b', { kind: 'error', message: 'NO_AUTH', retrying: false }),
        on('/a', { kind: 'state', node: { exists: false }, at: 11 }, 'test'),
      ],
      { epoch: 3, now: 100 },
    );
    expect(entry('/a')).toMatchObject({
      epoch: 3,
      error: null,
      znode: { path: '/a', at: 10, epoch: 3, node: { exists: true } },
      children: { names: ['n-2', 'n-10'], updatedAt: 100 },
    });
    expect(entry('/b')).toMatchObject({ error: { message: 'NO_AUTH', retrying: false, at: 100 } });
    // Another ensemble, another entry.
    expect(entry('/a', 'test')?.znode?.node.exists).toBe(false);

    applyServerEvents(client, [on('/a', { kind: 'children', mode: 'diff', added: ['n-1'], removed: ['n-10'], total: 2 })], { epoch: 3, now: 200 });
    expect(entry('/a')?.children).toMatchObject({ names: ['n-1', 'n-2'], updatedAt: 200 });
    // Fresh data answers an earlier read failure.
    applyServerEvents(client, [on('/b', { kind: 'state', node: { exists: false }, at: 12 })], { epoch: 3, now: 300 });
    expect(entry('/b')?.error).toBeNull();
  });

  it('waits for a full list: a diff with nothing to apply it to leaves the entry as it was', () => {
    applyServerEvents(client, [on('/c', { kind: 'children', mode: 'diff', added: ['x'], removed: [], total: 1 })], { epoch: 1, now: 1 });
    expect(entry('/c')).toBeUndefined();
  });

  it('shows a list sent in pages only once whole, keeping the previous list meanwhile', () => {
    applyServerEvents(client, [on('/p', { kind: 'children', mode: 'full', names: ['old'], total: 1 })], { epoch: 1, now: 1 });
    applyServerEvents(client, [on('/p', { kind: 'children', mode: 'page', names: ['n-3', 'n-1'], total: 3, offset: 0, last: false })], { epoch: 2, now: 2 });
    expect(entry('/p')?.children).toMatchObject({ names: ['old'], epoch: 1 });
    applyServerEvents(client, [on('/p', { kind: 'children', mode: 'page', names: ['n-2'], total: 3, offset: 2, last: true })], { epoch: 2, now: 3 });
    expect(entry('/p')?.children).toMatchObject({ names: ['n-1', 'n-2', 'n-3'], total: 3, epoch: 2, updatedAt: 3 });
    expect(entry('/p')?.childrenPages).toBeUndefined();
  });

  it("shows a refusal as the path's error, and a released path as no longer live", () => {
    expect(applyRefusal(client, { topic: 'znode', ensemble: 'prod', params: { path: '/s/b' } }, 'outside the share link', { epoch: 2, now: 5 })).toBe(true);
    expect(entry('/s/b')?.error).toMatchObject({ message: 'outside the share link', retrying: false });

    applyServerEvents(
      client,
      [on('/a', { kind: 'state', node: { exists: false }, at: 1 }), on('/a', { kind: 'children', mode: 'full', names: [], total: 0 })],
      { epoch: 2, now: 5 },
    );
    markReleased(client, { topic: 'znode', ensemble: 'prod', params: { path: '/a' } });
    expect(entry('/a')).toMatchObject({ epoch: RELEASED_EPOCH, znode: { epoch: RELEASED_EPOCH }, children: { epoch: RELEASED_EPOCH } });
  });

  it('hands watch events to the log (one append per batch) and keeps them out of the entry', async () => {
    const before = watchEventStore.lastSeq();
    applyServerEvents(
      client,
      [on('/w', { kind: 'watchEvent', event: 'dataChanged', at: 7 }), on('/w', { kind: 'watchEvent', event: 'childrenChanged', at: 8 })],
      { epoch: 1, now: 9 },
    );
    expect(entry('/w')).toBeUndefined();
    await Promise.resolve();
    expect(watchEventStore.lastSeq()).toBe(before + 2);
    const logged = watchEventStore.get().filter((r) => r.seq > before);
    expect(logged.map((r) => [r.ensemble, r.path, r.event, r.at]).sort()).toEqual([
      ['prod', '/w', 'childrenChanged', 8],
      ['prod', '/w', 'dataChanged', 7],
    ]);
  });
});
