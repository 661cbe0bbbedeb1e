/**
 * sharedPolling's pure parts: how a result is cut into pages under the replicas' 64 KiB cap and
 * read back, what is refused past the page bound, and how the election orders its candidates.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { candidateOrder, parseCandidate } from '../../src/replicas/pollingElection.js';
import { decodePolled, encodePolled, MAX_POLLED_PAGES, PAGE_BYTES, polledHeadSchema, TooLargeToShare } from '../../src/replicas/polledValue.js';
import { MAX_VALUE_BYTES } from '../../src/replicas/replicaStore.js';

/** Base64 of random bytes: it deflates to about three quarters of its length, no smaller. */
const noise = (chars: number) => randomBytes(Math.ceil((chars * 3) / 4)).toString('base64');

describe('a polled result in pages', () => {
  it('fits a small result in the head alone, deflated, and reads it back', async () => {
    const value = { members: Array.from({ length: 5 }, (_, i) => ({ address: `zk${i}:2181`, state: 'follower' })) };
    const { pages, bytes } = await encodePolled(value);
    expect(pages).toHaveLength(1);
    expect(bytes).toBeLessThan(JSON.stringify(value).length);
    expect(await decodePolled(pages, bytes)).toEqual(value);
  });

  it('cuts a large one into pages that each stay under the cap with the head around them, in order', async () => {
    const value = [noise(3 * PAGE_BYTES)];
    const { pages, bytes } = await encodePolled(value);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.length).toBeLessThanOrEqual(MAX_POLLED_PAGES);
    const head = polledHeadSchema.parse({
      v: 1,
      by: { id: 'a1b2c3d4e5f6', name: 'keeper-host-with-a-long-name.example.internal:8080' },
      term: 9_999_999_999,
      seq: '9999999999-99999',
      at: Date.now(),
      ask: 2 ** 31 - 1,
      failed: { ask: 2 ** 31 - 1, message: 'x'.repeat(2_000) },
      pages: pages.length,
      bytes,
      z: pages[0]!,
    });
    expect(Buffer.byteLength(JSON.stringify(head))).toBeLessThanOrEqual(MAX_VALUE_BYTES);
    for (const page of pages.slice(1)) expect(Buffer.byteLength(JSON.stringify({ seq: head.seq, z: page }))).toBeLessThanOrEqual(MAX_VALUE_BYTES);
    expect(await decodePolled(pages, bytes)).toEqual(value);
    // Pages out of order, or one missing, do not make up the result.
    await expect(decodePolled(pages.slice(0, -1), bytes)).rejects.toThrow(/the head says/);
    await expect(decodePolled([pages[1]!, pages[0]!, ...pages.slice(2)], bytes)).rejects.toThrow();
  });

  it('refuses a result past the page bound, saying how large it is', async () => {
    await expect(encodePolled([noise(((MAX_POLLED_PAGES + 1) * PAGE_BYTES) / 0.7)])).rejects.toThrow(TooLargeToShare);
    await expect(encodePolled([noise(((MAX_POLLED_PAGES + 1) * PAGE_BYTES) / 0.7)])).rejects.toThrow(/pages; the bound is 16 of 46000 bytes/);
  });
});

describe('the polling election', () => {
  it('orders candidates by their sequence, whatever the replica id, and ignores names it does not make', () => {
    expect(parseCandidate('candidate-0a1b2c-0000000012')).toEqual({ replica: '0a1b2c', seq: 12 });
    expect(parseCandidate('candidate-0a1b2c-12')).toBeNull();
    expect(parseCandidate('lock-0000000001')).toBeNull();
    const order = candidateOrder(['candidate-ffff-0000000007', 'stray', 'candidate-0001-0000000010', 'candidate-aaaa-0000000003']);
    expect(order.map((c) => [c.replica, c.seq])).toEqual([
      ['aaaa', 3],
      ['ffff', 7],
      ['0001', 10],
    ]);
  });
});
