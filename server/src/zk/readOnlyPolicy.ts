/**
 * When the console goes read-only, and when it comes back. ZooKeeper 3.7+ (ZOOKEEPER-3863): a
 * member that lost quorum and runs with readonlymode.enabled refuses to resume a session opened
 * with quorum, and opens new sessions only as local ones (localSessionsEnabled=true). So a
 * console whose session cannot be resumed anywhere would wait in vain. This asks the members
 * what they are (srvr's Mode, by the function the ensemble gives) while the session is
 * disconnected, and when no member serves read-write and one serves read-only, gives up the
 * session for a new, read-only one there. While read-only it asks again, and moves to a member
 * serving with quorum as soon as there is one (a new session: the read-only one is local to its
 * member). Without quorum no session can expire, so giving one up early costs what the presumed
 * expiry after the session timeout would have cost anyway.
 *
 * Gentle: one round of srvr only while disconnected for 2 s or more, or read-only; 2 s apart,
 * doubling to 10 s, jittered; never two rounds at once.
 */
import { backoffDelay, type Backoff, type ConsoleSessionState } from '@keeper/shared';

/** Members by what they serve, as host:port. */
export interface MemberModes {
  readWrite: string[];
  readOnly: string[];
}

export type MemberModesProbe = () => Promise<MemberModes | null>;

export interface ReadOnlyActions {
  openReadOnly(member: string): void;
  moveTo(member: string): void;
}

const LOOK: Backoff = { baseMs: 2_000, capMs: 10_000, jitter: [0.75, 1] };
/** Disconnected for this long before the members are asked: a reconnect to the same session usually comes first. */
const DISCONNECTED_GRACE_MS = 2_000;

type Watching = 'disconnected' | 'readOnly' | null;

export class ReadOnlyPolicy {
  private busy = false;
  private nextAt = 0;
  private looks = 0;
  private watching: Watching = null;
  /** Rounds of srvr asked so far; for tests. */
  rounds = 0;

  constructor(private readonly probe: MemberModesProbe) {}

  /** One look, from the gateway's timer. `since`: when the current state began. */
  tick(state: ConsoleSessionState, since: number, now: number, actions: ReadOnlyActions): void {
    const watching: Watching =
      state === 'readOnly' ? 'readOnly' : (state === 'disconnected' || state === 'connecting') && now - since >= DISCONNECTED_GRACE_MS ? 'disconnected' : null;
    if (watching !== this.watching) {
      this.watching = watching;
      this.looks = 0;
      this.nextAt = now;
    }
    if (watching === null || this.busy || now < this.nextAt) return;
    this.busy = true;
    this.rounds++;
    this.nextAt = now + backoffDelay(this.looks++, LOOK);
    void this.probe()
      .then((modes) => {
        if (!modes || this.watching !== watching) return;
        if (watching === 'disconnected' && modes.readWrite.length === 0 && modes.readOnly[0] !== undefined) actions.openReadOnly(modes.readOnly[0]);
        else if (watching === 'readOnly' && modes.readWrite[0] !== undefined) actions.moveTo(modes.readWrite[0]);
      })
      .catch(() => undefined)
      .finally(() => {
        this.busy = false;
      });
  }
}
