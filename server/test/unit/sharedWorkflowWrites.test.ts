/**
 * The replica running a shared upgrade writes its workflow to the home ensemble one
 * compare-and-set after the other (workflowWriter.ts), and each write fits one value
 * (workflowFit.ts). Pure: the write is a function here; the real one is in
 * replicaHandover.integration.test.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createWorkflow, planUpgrade, type UpgradeWorkflow } from '@keeper/shared';
import { storedWithin, WorkflowWriter } from '../../src/workflows/workflowWriter.js';
import type { WriteOutcome } from '../../src/workflows/sharedWorkflows.js';
import { fitWorkflow } from '../../src/replicas/workflowFit.js';
import { testLogger } from '../support/logger.js';
import { threeVoters } from '../../../shared/test/upgrades/support.js';

const T = 1_700_000_000_000;
const base = (): UpgradeWorkflow => createWorkflow({ id: 'u1', plan: planUpgrade({ health: threeVoters(T) }), at: T, restartMethod: 'command' });
const at = (n: number): UpgradeWorkflow => ({ ...base(), updatedAt: T + n });

describe('WorkflowWriter', () => {
  it('writes at the version it last wrote, coalesces what comes meanwhile, and says each state stored', async () => {
    const writes: { at: number; version: number | null }[] = [];
    let release: () => void = () => undefined;
    const writer = new WorkflowWriter(
      null,
      async (wf, version) => {
        writes.push({ at: wf.updatedAt - T, version });
        if (writes.length === 1) await new Promise<void>((r) => (release = r));
        return { ok: true, version: (version ?? -1) + 1 };
      },
      { stored: () => undefined, conflict: () => expect.unreachable() },
      testLogger,
    );
    const first = writer.submit(at(1));
    await sleep(0);
    // Three changes while the first write is under way: only the newest is written next.
    const middle = [writer.submit(at(2)), writer.submit(at(3)), writer.submit(at(4))];
    release();
    expect(await first).toBe(true);
    expect(await Promise.all(middle)).toEqual([true, true, true]);
    expect(writes).toEqual([
      { at: 1, version: null },
      { at: 4, version: 0 },
    ]);
    expect(writer.storedVersion).toBe(1);
  });

  it('another replica wrote first: what waits is said not stored, nothing more is written, and the conflict is told once', async () => {
    let conflicts = 0;
    let calls = 0;
    const writer = new WorkflowWriter(
      5,
      async (): Promise<WriteOutcome> => {
        calls++;
        await sleep(5);
        return { ok: false };
      },
      { stored: () => undefined, conflict: () => conflicts++ },
      testLogger,
    );
    const a = writer.submit(at(1));
    const b = writer.submit(at(2));
    expect(await Promise.all([a, b])).toEqual([false, false]);
    expect(await writer.submit(at(3))).toBe(false);
    expect({ calls, conflicts }).toEqual({ calls: 1, conflicts: 1 });
  });

  it('a write that failed (the home ensemble away) is sent again until it is stored', async () => {
    let calls = 0;
    const writer = new WorkflowWriter(
      2,
      async (_wf, version) => {
        if (++calls < 3) throw new Error('CONNECTION_LOSS');
        return { ok: true, version: version! + 1 };
      },
      { stored: () => undefined, conflict: () => expect.unreachable() },
      testLogger,
    );
    expect(await writer.submit(at(1))).toBe(true);
    expect(calls).toBe(3);
    expect(writer.storedVersion).toBe(3);
  });
});

describe('fitWorkflow', () => {
  const bytes = (wf: UpgradeWorkflow) => Buffer.byteLength(JSON.stringify(wf));

  function big(): UpgradeWorkflow {
    const wf = base();
    const checks = Array.from({ length: 300 }, (_, i) => ({ id: 'settled' as const, ok: i % 2 === 0, saw: `flap ${i} ${'x'.repeat(150)}`, at: T + i }));
    return {
      ...wf,
      steps: wf.steps.map((s, i) => ({
        ...s,
        state: i === 0 ? ('done' as const) : s.state,
        command: { line: 'restart', exitCode: 0, outputTail: 'o'.repeat(4096), deadlineAt: null, process: null, withheld: false },
        checks,
      })),
    };
  }

  it('leaves a workflow that fits as it is', () => {
    const wf = base();
    expect(fitWorkflow(wf, 64 * 1024)).toBe(wf);
  });

  it("trims outputs, then the oldest checks, never a step's state or requests", () => {
    const wf = big();
    expect(bytes(wf)).toBeGreaterThan(64 * 1024);
    const fitted = fitWorkflow(wf, 64 * 1024)!;
    expect(bytes(fitted)).toBeLessThanOrEqual(64 * 1024);
    expect(fitted.steps.map((s) => [s.state, s.restartRequestedAt, s.address])).toEqual(wf.steps.map((s) => [s.state, s.restartRequestedAt, s.address]));
    // The finished step's output went first; the newest checks stay.
    expect(fitted.steps[0]!.command!.outputTail).toBe('');
    expect(fitted.steps[1]!.checks.at(-1)).toEqual(wf.steps[1]!.checks.at(-1));
    expect(fitWorkflow(wf, 2_000)).toBeNull();
  });
});

describe('storedWithin: how long an answer waits for its state to be stored', () => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it('says what the write said once it settles, and leaves no timer behind', async () => {
    const before = timers();
    expect(await storedWithin(Promise.resolve(true), 60_000)).toBe(true);
    expect(await storedWithin(Promise.resolve(false), 60_000)).toBe(false);
    // The 60 s timers were cleared with the answers (they once stayed until they fired).
    expect(timers()).toBe(before);
  });

  it('answers null once the wait is over while the write is still being retried, and the write may still land', async () => {
    let land: (stored: boolean) => void = () => undefined;
    const write = new Promise<boolean>((resolve) => (land = resolve));
    const began = Date.now();
    expect(await storedWithin(write, 50)).toBeNull();
    expect(Date.now() - began).toBeGreaterThanOrEqual(45);
    land(true);
    expect(await write).toBe(true);
  });
});
