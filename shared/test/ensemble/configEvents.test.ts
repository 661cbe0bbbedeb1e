/**
 * The configuration's change and a resize in the ensemble's timeline: what a new /zookeeper/config
 * version changed, in members' words and sizes; the client addresses Keeper's connection string
 * follows (none from a TLS-only line, which names no client port); a resize's start, verified
 * steps and end, each once.
 */
import { describe, expect, it } from 'vitest';
import { clientAddresses, configChangeSentence, configEvents, parseDynamicConfig, reconfigEvents, type ReconfigWorkflow } from '../../src/index.js';

const line = (id: number, role = 'participant') => `server.${id}=127.0.0.1:${2880 + id}:${3880 + id}:${role};127.0.0.1:${2190 + id}`;
const config = (lines: string[], version: string) => parseDynamicConfig([...lines, `version=${version}`].join('\n'));

describe('configuration events', () => {
  const three = config([line(1), line(2), line(3)], '100000000');

  it('say who was added, removed or changed role, with the sizes before and after', () => {
    const next = config([line(2), line(3, 'observer'), line(4), line(5)], '100000009');
    expect(configChangeSentence(three, next)).toBe(
      'configuration version 100000009: member 3 now an observer; member 4 added as a voter; member 5 added as a voter; member 1 removed (3 voters tolerate 1 failure → 3 voters tolerate 1 failure; 1 observer)',
    );
  });

  it('are none for the first read or the same version read again', () => {
    expect(configEvents(null, three, 1)).toEqual([]);
    expect(configEvents(three, config([line(1), line(2), line(3)], '100000000'), 1)).toEqual([]);
    expect(configEvents(three, config([line(1), line(2)], '100000004'), 7)).toEqual([
      {
        at: 7,
        kind: 'configuration',
        text: 'configuration version 100000004: member 3 removed (3 voters tolerate 1 failure → 2 voters tolerate 0 failures)',
        severity: 'info',
        member: null,
        configVersion: '100000004',
      },
    ]);
  });

  it("give the members' client addresses in id order, the quorum host for a wildcard client host, none for a line without a client port", () => {
    expect(clientAddresses(three)).toEqual(['127.0.0.1:2191', '127.0.0.1:2192', '127.0.0.1:2193']);
    expect(clientAddresses(config(['server.2=zk2:2888:3888:participant;0.0.0.0:2181', 'server.1=[::1]:2888:3888;[::1]:2181'], '1'))).toEqual([
      '[::1]:2181',
      'zk2:2181',
    ]);
    expect(clientAddresses(config(['server.1=zk1:2888:3888:participant'], '1'))).toBeNull();
  });
});

describe('resize events', () => {
  const step = (index: number, state: ReconfigWorkflow['steps'][number]['state']) =>
    ({
      index,
      state,
      zkCli: `reconfig -add ${line(3 + index)}`,
      version: state === 'done' ? `10000000${index}` : null,
      doneAt: state === 'done' ? 50 + index : null,
    }) as ReconfigWorkflow['steps'][number];
  const wf = (state: ReconfigWorkflow['state'], steps: ReconfigWorkflow['steps'], reason: string | null = null) =>
    ({
      id: 'r1',
      state,
      steps,
      reason,
      finishedAt: state === 'done' ? 99 : null,
      sizeSentence: '3 voters tolerate 1 failure → 5 voters tolerate 2 failures',
    }) as ReconfigWorkflow;

  it('tell the start, each verified step once, and the end', () => {
    const planned = wf('planned', [step(1, 'pending'), step(2, 'pending')]);
    const started = wf('running', [step(1, 'sending'), step(2, 'pending')]);
    const oneDone = wf('running', [step(1, 'done'), step(2, 'sending')]);
    const done = wf('done', [step(1, 'done'), step(2, 'done')], 'every step verified');
    expect(reconfigEvents(planned, started, 10).map((e) => e.text)).toEqual([
      'resize started: 3 voters tolerate 1 failure → 5 voters tolerate 2 failures (2 steps)',
    ]);
    expect(reconfigEvents(started, oneDone, 20).map((e) => [e.at, e.text])).toEqual([
      [51, `resize step 1 of 2 verified: reconfig -add ${line(4)} (configuration version 100000001)`],
    ]);
    expect(reconfigEvents(oneDone, oneDone, 30)).toEqual([]);
    expect(reconfigEvents(oneDone, done, 40).map((e) => e.text)).toEqual([
      `resize step 2 of 2 verified: reconfig -add ${line(5)} (configuration version 100000002)`,
      'resize done: 3 voters tolerate 1 failure → 5 voters tolerate 2 failures',
    ]);
    const paused = wf('paused', [step(1, 'done'), step(2, 'pending')], 'step 2 was refused: no quorum for the new configuration');
    expect(reconfigEvents(oneDone, paused, 50).map((e) => [e.text, e.severity])).toEqual([
      ['resize paused: step 2 was refused: no quorum for the new configuration', 'warning'],
    ]);
  });
});
