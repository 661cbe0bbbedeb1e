/** The zoo.cfg of one sandbox member: loopback only, quorum mode even for one member. */
import { memberPorts } from './ports.js';

/** 15 minutes: the longest session timeout a sandbox member grants. */
export const MAX_SESSION_TIMEOUT_MS = 900_000;

export interface ZooCfgParams {
  id: number;
  size: number;
  portOffset: number;
  dataDir: string;
  tickTime: number;
  /** extraConfig then memberConfig(id); later keys win over the defaults below. */
  overrides: Record<string, string>[];
  /**
   * readonlymode.enabled (a JVM property, set by the launcher) needs local sessions on 3.7+: a
   * member without quorum opens only local sessions, and refuses to resume one made with quorum.
   */
  readOnlyMode?: boolean;
  /** TLS only: the client port becomes secureClientPort (Netty), with these stores. */
  tls?: { keystore: string; truststore: string; password: string; clientAuth: 'need' | 'want' | 'none' };
  /**
   * Dynamic reconfiguration (issue 24): the server lines go to this file instead of zoo.cfg,
   * with reconfigEnabled=true and this super user (`superDigest`, ZooKeeper's
   * DigestAuthenticationProvider form `super:<base64 sha1("super:<password>")>`).
   */
  dynamic?: { file: string; superDigest: string };
}

/** The server line of sandbox member `id` (its quorum, election and, unless TLS-only, client ports). */
export function sandboxServerLine(id: number, portOffset: number, role: 'participant' | 'observer' = 'participant', tls = false): string {
  const q = memberPorts(id, portOffset);
  return `server.${id}=127.0.0.1:${q.peerPort}:${q.electionPort}:${role}${tls ? '' : `;127.0.0.1:${q.clientPort}`}`;
}

/** A dynamic configuration file: the server lines, nothing else (ZooKeeper adds the version to the file's name). */
export function renderDynamicConfig(lines: readonly string[]): string {
  for (const line of lines) if (!/^server\.\d+=[^\r\n]+$/.test(line)) throw new Error(`invalid dynamic config line ${JSON.stringify(line)}`);
  return `${lines.join('\n')}\n`;
}

export function zooCfgEntries(p: ZooCfgParams): Map<string, string> {
  const own = memberPorts(p.id, p.portOffset);
  const entries = new Map<string, string>([
    ['tickTime', String(p.tickTime)],
    ['initLimit', '10'],
    ['syncLimit', '5'],
    ['dataDir', p.dataDir],
    // ZooKeeper's default cap is 20 ticks (40 s at the default tickTime): a client asking for
    // 900 s (seed 000's workers) would silently get 40 s. Allow the 15-minute sessions that
    // real deployments use, so they can be shown locally; the floor stays 2 ticks.
    ['maxSessionTimeout', String(MAX_SESSION_TIMEOUT_MS)],
    // A one-member sandbox is still a quorum, so it behaves like the 3-member one.
    ['standaloneEnabled', 'false'],
    ['4lw.commands.whitelist', '*'],
    ['admin.enableServer', 'true'],
    ['admin.serverAddress', '127.0.0.1'],
    ['admin.serverPort', String(own.adminPort)],
    // Every test client comes from 127.0.0.1: the default cap of 60 per IP is too low.
    ['maxClientCnxns', '0'],
    // `npm start` keeps its data between runs: keep the disk use bounded.
    ['autopurge.snapRetainCount', '3'],
    ['autopurge.purgeInterval', '1'],
  ]);
  if (p.dynamic) {
    // The members are in the dynamic file (renderDynamicConfig); ZooKeeper rewrites both on a reconfig.
    entries.set('reconfigEnabled', 'true');
    entries.set('dynamicConfigFile', p.dynamic.file);
    // ZooKeeper makes an unknown key a `zookeeper.` system property (as ensembleReset.ts does).
    entries.set('DigestAuthenticationProvider.superDigest', p.dynamic.superDigest);
  } else {
    for (let n = 1; n <= p.size; n++) {
      // A server line's client part opens a plain client port: a TLS-only member has none.
      const [key, value] = sandboxServerLine(n, p.portOffset, 'participant', Boolean(p.tls)).split(/=(.*)/s);
      entries.set(key!, value!);
    }
  }
  if (p.readOnlyMode) {
    entries.set('localSessionsEnabled', 'true');
    // A local session that creates an ephemeral becomes global, so it survives a move to another member.
    entries.set('localSessionsUpgradingEnabled', 'true');
  }
  if (p.tls) {
    // Checked on this machine (shared notes, "TLS-only members"): Netty, PKCS12 stores, no clientPort.
    entries.set('secureClientPort', String(own.clientPort));
    entries.set('secureClientPortAddress', '127.0.0.1');
    entries.set('serverCnxnFactory', 'org.apache.zookeeper.server.NettyServerCnxnFactory');
    entries.set('ssl.keyStore.location', p.tls.keystore);
    entries.set('ssl.keyStore.password', p.tls.password);
    entries.set('ssl.keyStore.type', 'PKCS12');
    entries.set('ssl.trustStore.location', p.tls.truststore);
    entries.set('ssl.trustStore.password', p.tls.password);
    entries.set('ssl.trustStore.type', 'PKCS12');
    entries.set('ssl.clientAuth', p.tls.clientAuth);
  }
  for (const layer of p.overrides) {
    for (const [key, value] of Object.entries(layer)) entries.set(key, value);
  }
  return entries;
}

export function renderZooCfg(p: ZooCfgParams): string {
  const lines = ['# Written by scripts/sandbox on every start; edits are lost.'];
  for (const [key, value] of zooCfgEntries(p)) {
    if (/[\r\n=]/.test(key) || /[\r\n]/.test(value) || key.trim() !== key || key === '') {
      throw new Error(`invalid zoo.cfg entry ${JSON.stringify(key)}=${JSON.stringify(value)}`);
    }
    lines.push(`${key}=${value}`);
  }
  return `${lines.join('\n')}\n`;
}
