/**
 * Resizing an ensemble (issue 24, docs/design/reconfig.md): pure, ZooKeeper-free logic.
 *   parseDynamicConfig  /zookeeper/config's server lines and version
 *   parseAddLine        a server.N= line to add, checked as ZooKeeper checks it
 *   isServerLineHost    a member's host: a host name or an IP address, nothing a shell would read (address.ts)
 *   planReconfig        the ordered incremental steps, the size before and after, refusals, risks
 */
export * from './address.js';
export * from './dynamicConfig.js';
export * from './plan.js';
export * from './rights.js';
export * from './preflight.js';
export * from './workflow.js';
export * from './joiners.js';
export * from './suggest.js';
