/**
 * Every sandbox port layout the project itself uses (`npm start`, e2e, integration tests,
 * benches), in one place so that none collides with another.
 *
 * Each layout stays below Linux's ephemeral port range (32768 and up): any outgoing
 * connection on this machine (a ZooKeeper member's, Keeper's, a test client's) may hold a
 * port there, and a member that then cannot bind its port fails a run at random. That
 * happened: "port 33292 is in use" for an admin port at offset 25200.
 *
 * A layout at offset `o` holds four windows of nine ports (client 2191+o, peer 2881+o,
 * election 3881+o, admin 8091+o; see ports.ts). Test offsets are 20 apart and span less than
 * 1000, so no window of one meets a window of another (the windows are 690, 1000, 1690,
 * 4210, 5210 and 5900 apart, none of them within 9 of a multiple of 20 below 1000).
 * `portOffsets.test.ts` checks all of it.
 */
export const PORT_OFFSETS = {
  /** `npm start`'s sandbox. */
  sandbox: 0,
  /** Playwright's sandbox (playwright.config.ts; KEEPER_E2E_PORT_OFFSET overrides), and its second lane's. */
  e2e: 24_000,
  e2eLane2: 24_020,
  /** The timed e2e specs' own sandbox (KEEPER_E2E_SLOT=alone): npm test runs them beside the two lanes. */
  e2eAlone: 24_040,
  sandboxLauncherTest: 10_000,
  sandboxSigtermTest: 10_020,
  sandboxSigkillTest: 10_040,
  gatewayTest: 10_060,
  hubTest: 10_080,
  apiTest: 10_100,
  ensembleTest: 10_120,
  restrictedEnsembleTest: 10_140,
  accessTest: 10_160,
  opsTest: 10_180,
  hardeningTest: 10_200,
  freshnessTest: 10_220,
  memberFreshnessTest: 10_240,
  treeControlsTest: 10_260,
  sandboxDrillTest: 10_280,
  limitsTest: 10_300,
  securityTest: 10_320,
  spareTestA: 10_340,
  spareTestB: 10_360,
  httpContractTest: 10_380,
  childrenPageTest: 10_420,
  maxCnxnsTest: 10_440,
  herdTest: 10_460,
  lockScanTest: 10_540,
  lockClientsTest: 10_560,
  upgradesTest: 10_580,
  olderBuildTest: 10_660,
  upgradesLoadTest: 10_620,
  upgradeRefusalTest: 10_640,
  upgradeMethodsTest: 10_680,
  upgradesAttackTest: 10_720,
  upgradeIdentityTest: 10_740,
  upgradeCommandsTest: 10_760,
  locksTruthTest: 10_780,
  keeperStallTest: 10_820,
  ensembleEventsTest: 10_840,
  /** The sign-in integration file. 10_900 would share ports with locksBench (admin 8091+10900 = client 2191+16800). */
  authTests: 10_920,
  /**
   * The OIDC integration file. It shared authTests with the sign-in file while integration files ran one at a
   * time; two at a time, the second to start found the first's members on its ports (portOffsets.test.ts now
   * checks that no two files name one layout).
   */
  oidcTest: 12_540,
  hubMemoryTest: 10_860,
  socketReserveTest: 10_880,
  /** A TLS-only, SASL-required ensemble (secureEnsemble.integration.test.ts). */
  secureEnsembleTest: 10_940,
  /** TLS and SASL bad input, one member at a time (secureBadInput.integration.test.ts). */
  secureBadInputTest: 10_960,
  /** Read-only members during a quorum loss (readOnly.integration.test.ts). */
  readOnlyTest: 10_980,
  locksFixturesTest: 10_480,
  /** 10_500 would share ports with latencyBench (admin 8091+10500 = client 2191+16400). */
  locksTest: 10_520,
  /** Past 10_999 (every offset there is taken): checked against all others by portOffsets.test.ts. */
  metricsTest: 12_000,
  packageTest: 12_020,
  /** SASL GSSAPI against a real MIT KDC (kerberos.integration.test.ts). */
  kerberosTest: 12_980,
  /** Resizing (issue 24): a reconfig-enabled sandbox grown and shrunk (scripts/sandbox/reconfig.integration.test.ts). */
  sandboxReconfigTest: 12_140,
  /** 3 → 5 → 3 voters under kazoo writers, through Keeper's reconfig executor (server/test/reconfig.integration.test.ts). */
  reconfigTest: 12_160,
  /** Kept for the resize workflow's tests (a concurrent change, a member that never connects). */
  reconfigWorkflowTest: 12_180,
  reconfigSpareTest: 12_200,
  /** The resize e2e spec's own sandbox, grown 3 → 4 and back through the UI (e2e/resize.spec.ts). */
  resizeE2e: 12_240,
  /**
   * `npm start -- --secure` run by e2e/secureEnsemble.spec.ts. Its own: npm test runs the e2e specs
   * beside the integration files.
   */
  secureE2e: 12_520,
  /** A voter ↔ observer round trip, Keeper killed mid-step, a member to add without reconfigEnabled (server/test/reconfigFaults.integration.test.ts). */
  reconfigFaultsTest: 12_340,
  reconfigFaultsSpare: 12_360,
  /**
   * The shared ensembles lent to integration files (server/test/support/ensemblePool.ts).
   * (10_400, 10_600 and 10_700 would share ports with fanoutBench, childrenBench and pollerBench.)
   */
  sharedPoolA: 12_040,
  sharedPoolB: 12_060,
  sharedPoolC: 12_080,
  sharedPoolD: 12_220,
  /** Two Keeper replicas on one home ensemble (server/test/replicas.integration.test.ts), and two behind nginx (replicasBehindNginx). */
  replicasTest: 12_100,
  replicaSharingTest: 12_120,
  /** A replica killed (SIGKILL) mid-upgrade, the upgrade finished by another (server/test/replicaHandover.integration.test.ts). */
  replicaHandoverTest: 12_260,
  /** The replicas' shared audit window and sign-in guess counters (server/test/replicaAudit.integration.test.ts). */
  replicaAuditTest: 12_280,
  /** sharedPolling: three replicas, one polling for all, the leader partitioned and closed (server/test/sharedPolling.integration.test.ts). */
  sharedPollingTest: 12_300,
  /** sharedPolling with its home ensemble stopped and started again (server/test/sharedPollingHomeAway.integration.test.ts). */
  sharedPollingHomeTest: 12_320,
  /** A replica killed (SIGKILL) mid lock scan, the scan taken over by another (server/test/replicaLockScan.integration.test.ts). */
  replicaLockScanTest: 12_380,
  /** replicas.identities: the root's x509/sasl ACL entries on a TLS + SASL home ensemble (server/test/replicaIdentities.integration.test.ts). */
  replicaIdentitiesTest: 12_440,
  /** bench/identitiesChange.ts: a 3-member TLS + SASL ensemble whose replicas' root gets a new ACL on 10,000 znodes. */
  replicaIdentitiesBench: 12_460,
  /** Two replica processes behind nginx: the home ensemble losing its leader, and the ensemble they upgrade under a kazoo writer (server/test/replicasFaults.integration.test.ts). */
  replicasFaultsHome: 12_480,
  replicasFaultsTarget: 12_500,
  fanoutBench: 16_300,
  latencyBench: 16_400,
  childrenBench: 16_500,
  pollerBench: 16_600,
  herdBench: 16_700,
  locksBench: 16_800,
  upgradesBench: 16_900,
  scaleBench: 17_000,
  /** bench/secure.ts: a TLS-only, SASL-required ensemble, and the plain one it is compared with in the same run. */
  secureBench: 17_100,
  secureBenchPlain: 17_200,
  /** bench/sharedPolling.ts: 1 vs 3 replicas' 4lw load, with and without sharedPolling. */
  sharedPollingBench: 17_360,
  /** bench/reconfig.ts: a reconfig-enabled ensemble resized 3 → 5 → 3 again and again (members up to 9). */
  reconfigBench: 17_420,
  /** bench/replicaFailover.ts: the home ensemble of two replica processes behind nginx, and the single Keeper it is compared with. */
  replicaFailoverBench: 12_420,
} as const;

/** The pool's offsets: as many ensembles at once as integration files run at once, plus one starting beside them. */
export const POOL_PORT_OFFSETS = [PORT_OFFSETS.sharedPoolA, PORT_OFFSETS.sharedPoolB, PORT_OFFSETS.sharedPoolC, PORT_OFFSETS.sharedPoolD] as const;

/** Single ports the project listens on beside the layouts: Keeper for `npm start` and for e2e. */
export const KEEPER_PORTS = {
  start: 8080,
  /** The e2e lanes' Keepers: lane n listens on e2e + n (playwright.config.ts). */
  e2e: 18_181,
  e2eLane2: 18_182,
  /** The timed e2e specs' own Keeper (KEEPER_E2E_SLOT=alone). */
  e2eAlone: 18_183,
  prometheusTest: 17_390,
  /** nginx terminating TLS in front of Keeper (server/test/reverseProxy.integration.test.ts). */
  nginxTest: 17_391,
  /** nginx in front of two Keeper replicas (server/test/replicasBehindNginx.integration.test.ts). */
  replicasNginxTest: 17_392,
  /** e2e specs that run a Keeper of their own against their lane's sandbox (restarted, or signed in through OIDC). */
  e2eRestart: 18_184,
  e2eOidc: 18_185,
  /** `npm start -- --secure` run by e2e/secureEnsemble.spec.ts (its sandbox at PORT_OFFSETS.secureE2e). */
  e2eSecure: 18_186,
  /** A second Keeper of that spec, on the same sandbox with rejectUnauthorized: false (the header's warning). */
  e2eSecureUnverified: 18_187,
  /** The resize e2e spec's Keeper, on its own sandbox (PORT_OFFSETS.resizeE2e). */
  e2eResize: 18_188,
  /** e2e/replicas.spec.ts: two Keeper replica processes, and the nginx in front of them. */
  e2eReplicaA: 17_395,
  e2eReplicaB: 17_396,
  e2eReplicasNginx: 17_393,
  /** bench/replicaFailover.ts: two replicas (the first also serves alone for the reference), and their nginx. */
  benchReplicaA: 17_397,
  benchReplicaB: 17_398,
  benchReplicasNginx: 17_394,
  /** server/test/replicasFaults.integration.test.ts: nginx in front of its two replica processes. */
  replicasFaultsNginx: 17_399,
} as const;

/** The OpenID Connect provider the e2e sign-in specs start (npm oidc-provider, on loopback). */
export const OIDC_PROVIDER_PORTS = { e2e: 17_100 } as const;

/** The MIT Kerberos KDC the SASL GSSAPI tests start (scripts/sandbox/kdc.ts, on loopback). */
export const KDC_PORTS = { kerberosTest: 17_200 } as const;

/** The first port of Linux's default ephemeral range (net.ipv4.ip_local_port_range). */
export const EPHEMERAL_PORT_FLOOR = 32_768;
