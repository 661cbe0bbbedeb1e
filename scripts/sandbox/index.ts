/** The sandbox ensemble launcher: a real ZooKeeper ensemble on loopback for dev and tests. */
export { SandboxEnsemble, superDigest, SUPER_PASSWORD_FILE } from './ensemble.js';
export { sandboxServerLine } from './zooCfg.js';
export { fourLetterWord, parseSrvrMode } from './fourLetterWord.js';
export { findZooKeeperClasspath } from './classpath.js';
export { memberPorts, PortInUseError } from './ports.js';
export type {
  AddOutcome,
  DrillOp,
  DrillOutcome,
  MemberBuild,
  MemberProcessState,
  MemberRestarter,
  SandboxMember,
  SandboxOptions,
  SandboxSecureOptions,
} from './types.js';
export { cachedOlderBuild, fallbackSentence, fetchOlderBuild, OLDER_BUILD, type OlderBuild, type OlderBuildFetch } from './olderBuild.js';
export { installedBuildVersion } from './buildVersion.js';
export { DRILL_OPS } from './types.js';
export { RESTART_TIMEOUT_MS } from './ensemble.js';
export { keeperSecureSettings, type KeeperSecureSettings, type SandboxSecurity } from './security.js';
export { makeCa, makeCert, makeKeystore, makeTruststore, type CaFiles, type CertFiles } from './certificates.js';
