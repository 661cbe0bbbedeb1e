/**
 * Real 3-member ensembles shared by integration test files that do not break their ensemble,
 * owned by vitest's main process (ensemblePoolSetup.ts) and lent to one file at a time.
 *
 * - An ensemble is started when a file first asks and none is free, on one of the pool's own
 *   port offsets; while it is lent, one more is started beside it (JVMs start in parallel with
 *   the tests), so the next file rarely waits.
 * - When a file gives it back it is reset (ensembleReset.ts): every session closed and every
 *   znode outside /zookeeper deleted. If that fails it is retired (stopped) and a fresh one takes
 *   its place: a file never sees another file's leftovers.
 * - Files that stop, kill, pause or restart members, or need their own zoo.cfg, keep their own
 *   ensembles (startTestEnsemble).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxEnsemble } from '../../../scripts/sandbox/index.js';
import { resetEnsemble, SUPER_DIGEST_CONFIG } from './ensembleReset.js';

/** What a file is handed: enough to connect and to configure Keeper, nothing to break it with. */
export interface LentEnsemble {
  id: number;
  connectionString: string;
  members: { id: number; host: string; clientPort: number; adminPort: number }[];
}

interface Slot {
  id: number;
  offset: number;
  stateDir: string;
  ensemble: Promise<SandboxEnsemble>;
  /** retiring: being stopped; its offset stays taken until its JVMs are gone. */
  state: 'starting' | 'free' | 'lent' | 'resetting' | 'retiring';
  /** The file it is lent to, for messages. */
  holder: string | null;
}

export interface PoolLog {
  (line: string): void;
}

export class EnsemblePool {
  private readonly slots: Slot[] = [];
  private readonly waiting: { who: string; take: (slot: Slot) => void }[] = [];
  private nextId = 1;
  private closed = false;
  /** Resets under way (release), which close() lets finish. */
  private readonly resetting = new Set<Promise<void>>();
  /** Figures for the end of the run: leases, resets, retirements, starts. */
  readonly stats = { leases: 0, resets: 0, retired: 0, started: 0, waitedMs: 0 };

  constructor(
    private readonly offsets: readonly number[],
    private readonly log: PoolLog = () => {},
  ) {}

  /** An ensemble for `who` alone until it gives it back. */
  async lease(who: string): Promise<LentEnsemble> {
    if (this.closed) throw new Error('ensemble pool: closed');
    const asked = Date.now();
    const slot = await new Promise<Slot>((take) => {
      this.waiting.push({ who, take });
      this.dispatch();
    });
    this.stats.leases += 1;
    this.stats.waitedMs += Date.now() - asked;
    const ensemble = await slot.ensemble;
    // From the second file on, one spare beside it, so the next file need not wait for JVMs
    // (a run of one file never starts one).
    if (this.stats.leases >= 2) this.startSpare();
    return {
      id: slot.id,
      connectionString: ensemble.connectionString,
      members: ensemble.members.map((m) => ({ id: m.id, host: m.host, clientPort: m.clientPort, adminPort: m.adminPort })),
    };
  }

  /** Takes it back; resets it (or retires it) before anyone else gets it. */
  release(id: number): void {
    const slot = this.slots.find((s) => s.id === id);
    if (!slot || slot.state !== 'lent') return;
    slot.state = 'resetting';
    const resetting = this.reset(slot).finally(() => this.resetting.delete(resetting));
    this.resetting.add(resetting);
  }

  async close(): Promise<void> {
    this.closed = true;
    // A reset still cleaning an ensemble gets to finish first (a second or so): stopped under it,
    // its client would retry the gone members and keep vitest's main process from exiting (60 s).
    await Promise.allSettled([...this.resetting]);
    const all = this.slots.splice(0);
    await Promise.all(all.map((s) => this.stop(s)));
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const slot = this.slots.find((s) => s.state === 'free') ?? this.slots.find((s) => s.state === 'starting' && s.holder === null) ?? this.startSlot();
      if (!slot) return;
      const next = this.waiting.shift()!;
      slot.holder = next.who;
      if (slot.state === 'free') slot.state = 'lent';
      next.take(slot);
    }
  }

  private startSpare(): void {
    if (!this.slots.some((s) => s.holder === null && (s.state === 'free' || s.state === 'starting'))) this.startSlot();
  }

  /** A new slot on a free offset, or null when every offset is taken. */
  private startSlot(): Slot | null {
    if (this.closed) return null;
    const offset = this.offsets.find((o) => !this.slots.some((s) => s.offset === o));
    if (offset === undefined) return null;
    const stateDir = mkdtempSync(join(tmpdir(), 'keeper-pool-'));
    const began = Date.now();
    const slot: Slot = {
      id: this.nextId++,
      offset,
      stateDir,
      ensemble: SandboxEnsemble.start({ stateDir, portOffset: offset, tickTime: 500, extraConfig: SUPER_DIGEST_CONFIG }),
      state: 'starting',
      holder: null,
    };
    this.slots.push(slot);
    this.stats.started += 1;
    slot.ensemble.then(
      () => {
        this.log(`shared ensemble ${slot.id} (offset ${offset}) serving in ${Date.now() - began} ms`);
        slot.state = slot.holder === null ? 'free' : 'lent';
        this.dispatch();
      },
      (error: Error) => {
        this.log(`shared ensemble ${slot.id} (offset ${offset}) did not start: ${error.message}`);
        this.forget(slot);
      },
    );
    return slot;
  }

  private async reset(slot: Slot): Promise<void> {
    const ensemble = await slot.ensemble;
    if (this.closed) return;
    const leaderId = await ensemble.leaderId();
    const leader = ensemble.members.find((m) => m.id === leaderId);
    const why = leader ? await resetEnsemble(ensemble.connectionString, leader) : 'no leader';
    if (why === null && !this.closed) {
      this.stats.resets += 1;
      slot.state = 'free';
      slot.holder = null;
      this.dispatch();
      return;
    }
    this.stats.retired += 1;
    this.log(`shared ensemble ${slot.id}, lent to ${slot.holder}, retired: ${why}`);
    slot.state = 'retiring';
    await this.stop(slot);
    this.forget(slot);
    this.dispatch();
  }

  private forget(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
  }

  private async stop(slot: Slot): Promise<void> {
    try {
      await (await slot.ensemble).close();
    } catch {
      // It never started: nothing to stop.
    }
    rmSync(slot.stateDir, { recursive: true, force: true });
  }
}
