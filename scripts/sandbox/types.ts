/** Public types of the sandbox ensemble launcher (others code against these names). */

export interface SandboxOptions {
  /** Number of voting members. Default 3. */
  size?: number;
  /**
   * Added to every port. Member N uses clientPort 2190+N, peer 2880+N, election 3880+N,
   * admin 8090+N, all on 127.0.0.1. Default 0.
   */
  portOffset?: number;
  /** Data, logs and configs live here; configs are written afresh on every start. */
  stateDir: string;
  /** Default 2000, so sessions can be negotiated up to 40 s (20 ticks). */
  tickTime?: number;
  /** Added to every member's zoo.cfg (overrides the sandbox defaults). */
  extraConfig?: Record<string, string>;
  /** Per-member overrides, applied after extraConfig, e.g. `4lw.commands.whitelist=srvr`. */
  memberConfig?: (id: number) => Record<string, string>;
  /** Lifecycle lines ("member 2 started, pid 1234"). Default: silent. */
  log?: (line: string) => void;
  /** How long start() waits for every member to serve and a leader to exist. Default 60 s. */
  startTimeoutMs?: number;
}

export type MemberProcessState = 'running' | 'stopped' | 'paused';

export interface SandboxMember {
  id: number;
  host: '127.0.0.1';
  clientPort: number;
  adminPort: number;
  /** The JVM's pid while running or paused, else null. */
  pid: number | null;
  state: MemberProcessState;
}
