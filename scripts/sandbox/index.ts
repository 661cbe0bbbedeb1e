/** The sandbox ensemble launcher: a real ZooKeeper ensemble on loopback for dev and tests. */
export { SandboxEnsemble } from './ensemble.js';
export { fourLetterWord, parseSrvrMode } from './fourLetterWord.js';
export { findZooKeeperClasspath } from './classpath.js';
export { memberPorts, PortInUseError } from './ports.js';
export type { MemberProcessState, SandboxMember, SandboxOptions } from './types.js';
