/** Public types of the sandbox ensemble launcher (others code against these names). */
import type { OlderBuild } from './olderBuild.js';

/**
 * Which ZooKeeper a member runs: the installed one, or the older build the sandbox started on
 * (SandboxOptions.startOn), so that restarting members onto the installed one is a real upgrade.
 */
export type MemberBuild = 'installed' | 'older';

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
  /** Default 2000. Sessions negotiate from 2 ticks up to 900 s (maxSessionTimeout, zooCfg.ts). */
  tickTime?: number;
  /** Added to every member's zoo.cfg (overrides the sandbox defaults). */
  extraConfig?: Record<string, string>;
  /** Per-member overrides, applied after extraConfig, e.g. `4lw.commands.whitelist=srvr`. */
  memberConfig?: (id: number) => Record<string, string>;
  /** Lifecycle lines ("member 2 started, pid 1234"). Default: silent. */
  log?: (line: string) => void;
  /** How long start() waits for every member to serve and a leader to exist. Default 60 s. */
  startTimeoutMs?: number;
  /**
   * Start every member on this older build (from fetchOlderBuild); restartMember then brings
   * each up on the installed build. Default: every member runs the installed build throughout.
   */
  startOn?: OlderBuild;
  /**
   * A production-like ensemble: TLS only (a CA of its own, certificates in `<stateDir>/tls`, made
   * with openssl and keytool), and with `saslUsers` SASL DIGEST-MD5 required of every session.
   */
  secure?: SandboxSecureOptions;
  /** readonlymode.enabled: a member that lost quorum keeps serving read-only clients. */
  readOnlyMode?: boolean;
  /**
   * Dynamic reconfiguration (issue 24): reconfigEnabled=true, the members in a dynamic config
   * file, and ZooKeeper's super user `super` with this password (what a reconfig needs). The
   * sandbox can then grow (addMember) and stops the members a reconfig removed. Not with `secure`.
   */
  reconfig?: { superPassword: string };
}

/** What `npm run sandbox -- add <id>` did: a member started as a learner, ready to be added with `line`. */
export interface AddOutcome {
  member: SandboxMember;
  /** The server line to add it with (`reconfig -add <line>`). */
  line: string;
  /** The mode srvr reported once it answered (a joiner waits as a follower or observer without voting); null when not waited for. */
  mode: string | null;
  message: string;
  tookMs: number;
}

export interface SandboxSecureOptions {
  /** DIGEST-MD5 users (name -> password) of the members' JAAS "Server" section; with them, sessionRequireClientSASLAuth=true. */
  saslUsers?: Record<string, string>;
  /**
   * SASL GSSAPI (Kerberos) required instead of DIGEST-MD5: the members' JAAS "Server" section
   * logs in as `principal` (e.g. zookeeper/localhost@KEEPER.TEST) from `keytab`, against the
   * KDC `krb5Conf` names (kdc.ts starts one).
   */
  kerberos?: { krb5Conf: string; keytab: string; principal: string };
  /** ssl.clientAuth; default need: every client shows a certificate signed by the sandbox CA. */
  clientAuth?: 'need' | 'want' | 'none';
}

export type MemberProcessState = 'running' | 'stopped' | 'paused';

export interface SandboxMember {
  id: number;
  host: '127.0.0.1';
  clientPort: number;
  adminPort: number;
  /** The JVM's pid while running or paused, else null. */
  pid: number | null;
  /** 'paused' is a frozen JVM (SIGSTOP): the drills call it "frozen". */
  state: MemberProcessState;
  /** When the member entered this state (ms since the epoch). */
  since: number;
  /** How its last JVM ended ("signal SIGKILL", "code 143"), null before any exit. */
  lastExit: string | null;
  /** The build it runs (or last ran, or starts on next). */
  build: MemberBuild;
}

/**
 * The fault drills an operator runs on a member (`npm run sandbox -- <op> <id>`):
 * kill = SIGKILL (a dead daemon: connection refused), freeze/thaw = SIGSTOP/SIGCONT
 * (the FAQ's hung server: connections open, nothing answered), stop = SIGTERM (clean
 * shutdown), start, restart = stop then start, waiting until the member serves again.
 */
export const DRILL_OPS = ['kill', 'freeze', 'thaw', 'stop', 'start', 'restart'] as const;
export type DrillOp = (typeof DRILL_OPS)[number];

export interface DrillOutcome {
  op: DrillOp;
  /** The member after the drill. */
  member: SandboxMember;
  /** Its pid before the drill (null when it was not running). */
  previousPid: number | null;
  /** The mode srvr reported once it served (start, restart), else null. */
  mode: string | null;
  /** One line for a person: what happened and what clients now see. */
  message: string;
  tookMs: number;
}

/**
 * What the server (or a later rolling upgrade) needs of a sandbox to restart its members
 * one at a time. SandboxEnsemble implements it; code outside scripts/ depends on this shape.
 */
export interface MemberRestarter {
  /**
   * Stops (SIGTERM, SIGKILL after a grace) and starts the member on `build` (default the
   * installed one); resolves once it serves, or throws at the deadline.
   */
  restartMember(id: number, opts?: { timeoutMs?: number; build?: MemberBuild }): Promise<DrillOutcome>;
}
