/**
 * A toy 3-voter ensemble for driving whole workflows in unit tests: a restarted member is down
 * for a few polls and comes back with its uptime reset; restarting the leader elects member 3
 * in a new epoch. Each poll is 2 s after the previous one. `crash` takes a member down that
 * nobody restarted, as real failures do.
 */
import type { EnsembleHealth } from '../../src/index.js';
import { health, type MemberSpec } from './support.js';

export class ToyEnsemble {
  at: number;
  leader = 1;
  epoch = 1;
  readonly uptime = new Map<number, number>([
    [1, 3600],
    [2, 3600],
    [3, 3600],
  ]);
  /** id -> polls it stays down for; Infinity never comes back. */
  readonly down = new Map<number, number>();

  constructor(start: number) {
    this.at = start;
  }

  /** pollsDown 0 is a restart fast enough never to be seen down: only its uptime tells. */
  restart(id: number, pollsDown = 2): void {
    if (pollsDown <= 0) this.uptime.set(id, 0);
    else this.down.set(id, pollsDown);
    if (id === this.leader) {
      this.leader = id === 3 ? 2 : 3;
      this.epoch += 1;
    }
  }

  crash(id: number, pollsDown: number): void {
    if (!this.down.has(id)) this.down.set(id, pollsDown);
  }

  downCount(): number {
    return this.down.size;
  }

  /** The poll at the current time; then the clock moves on 2 s. */
  poll(): EnsembleHealth {
    const up = [1, 2, 3].filter((id) => !this.down.has(id));
    // A crashed leader is replaced by the highest-numbered member left, in a new epoch.
    if (this.down.has(this.leader) && up.length > 0) {
      this.leader = Math.max(...up);
      this.epoch += 1;
    }
    const quorum = up.length >= 2;
    const specs: MemberSpec[] = [1, 2, 3].map((id) => {
      if (this.down.has(id)) return { id, state: 'down' };
      const state = !quorum ? 'not-serving' : id === this.leader ? 'leader' : 'follower';
      return { id, state, uptimeSeconds: this.uptime.get(id)!, zxid: `0x${this.epoch.toString(16)}00000000` };
    });
    const leader = specs.find((s) => s.state === 'leader');
    if (leader) leader.syncedFollowers = specs.filter((s) => s.state === 'follower').length;
    const snapshot = health(specs, this.at);
    this.at += 2000;
    for (const [id, left] of this.down) {
      if (left <= 1) {
        this.down.delete(id);
        this.uptime.set(id, 0);
      } else this.down.set(id, left - 1);
    }
    for (const [id, up] of this.uptime) if (!this.down.has(id)) this.uptime.set(id, up + 2);
    return snapshot;
  }
}
