/**
 * The console session's "last answer" while nothing changes (issue 34, item 14: the header said
 * "connected" over "LAST ANSWER … (45 s ago)"). The snapshot went to browsers only on a change of
 * state, so its last answer was the one at the last change. Now a live session's newer answer is
 * pushed at most every CONFIRMED_PUSH_MS: a browser sees the last answer move on, never faster.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { CONFIRMED_PUSH_MS } from '../src/zk/gateway.js';
import { leaseSharedEnsemble, type SharedEnsemble } from './support/sharedEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

let ensemble: SharedEnsemble;
let keeper: RunningKeeper;

beforeAll(async () => {
  ensemble = await leaseSharedEnsemble();
  keeper = await startKeeper({ host: '127.0.0.1', port: 0, ensembles: [{ name: 'it', connectionString: ensemble.connectionString }] }, { logger: testLogger });
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected' });
}, 90_000);

afterAll(async () => {
  await keeper?.close();
  await ensemble?.dispose();
}, 60_000);

it('a connected session sends its newer last answer to browsers while nothing else changes, at most every 5 s', async () => {
  const browser = await TestBrowser.open(keeper.url);
  try {
    await browser.subscribed('consoleSession', 'it', {});
    const sessions = () => browser.topicEvents('consoleSession', 'it').map((e) => e.event.session);
    await waitFor(() => sessions().length > 0, { what: 'the current session' });
    const first = sessions()[0]!;
    expect(first.state).toBe('connected');
    // The session answers its liveness probes meanwhile (one a second while idle).
    const later = await waitFor(() => sessions().find((s) => (s.confirmedAt ?? 0) >= (first.confirmedAt ?? 0) + CONFIRMED_PUSH_MS) ?? null, {
      what: 'a newer last answer, pushed',
      timeoutMs: 30_000,
    });
    expect(later.state).toBe('connected');
    expect(later.sessionId).toBe(first.sessionId);
    // Pushed answers are CONFIRMED_PUSH_MS apart at least: a heartbeat, not a stream.
    const answers = sessions().map((s) => s.confirmedAt ?? 0);
    for (let i = 1; i < answers.length; i++) expect(answers[i]! - answers[i - 1]!).toBeGreaterThanOrEqual(CONFIRMED_PUSH_MS);
  } finally {
    browser.close();
  }
}, 60_000);
