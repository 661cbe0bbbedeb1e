/**
 * One `server.N=` entry of a ZooKeeper configuration (zoo.cfg, `conf`, /zookeeper/config):
 *
 *   server.1=zk1:2888:3888                                   (3.4: no role, no client part)
 *   server.4=zk4:2888:3888:observer
 *   server.1=127.0.0.1:2881:3881:participant;127.0.0.1:2191  (3.5+ dynamic form)
 *   server.2=zk2:2888:3888;2181                              (client host omitted = all interfaces)
 *   server.3=[2001:db8::3]:2888:3888:participant;[2001:db8::3]:2181
 *   server.5=zk5a:2888:3888|zk5b:2888:3888;2181              (3.6 multi-address: first one wins)
 */

export type ConfiguredRole = 'participant' | 'observer';

export interface ServerSpec {
  id: number;
  /** The quorum (peer) address's host. */
  host: string;
  peerPort: number | null;
  electionPort: number | null;
  role: ConfiguredRole;
  /** As configured after ';' (null when omitted or a wildcard like 0.0.0.0). */
  clientHost: string | null;
  clientPort: number | null;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']);

/** "[::1]:2888:3888:observer" -> ["::1", "2888", "3888", "observer"]: IPv6 hosts keep their colons. */
function splitHostParts(text: string): string[] {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return [];
    const rest = text.slice(close + 1);
    return [text.slice(1, close), ...(rest.startsWith(':') ? rest.slice(1).split(':') : [])];
  }
  return text.split(':');
}

function port(text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,5}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : null;
}

function parseClientPart(text: string): { host: string | null; port: number | null } {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { host: null, port: port(trimmed) };
  const parts = splitHostParts(trimmed);
  if (parts.length < 2) return { host: null, port: null };
  const host = parts.slice(0, -1).join(':');
  return { host: WILDCARDS.has(host) ? null : host, port: port(parts.at(-1)) };
}

/** Parses `server.<id>` = `<value>`; null when the key is not a server entry or the value is unreadable. */
export function parseServerLine(key: string, value: string): ServerSpec | null {
  const idMatch = /^server\.(\d+)$/.exec(key.trim());
  if (!idMatch) return null;
  const [quorumPart = '', clientPart] = value.trim().split(';');
  const firstAddress = quorumPart.split('|')[0]!.trim();
  const parts = splitHostParts(firstAddress);
  const host = parts[0];
  if (!host) return null;
  // The role is the last part when it is a word; 3.4 configs have none (participant).
  const last = parts.at(-1)?.toLowerCase();
  const role: ConfiguredRole = last === 'observer' ? 'observer' : 'participant';
  const client = clientPart === undefined ? { host: null, port: null } : parseClientPart(clientPart);
  return {
    id: Number(idMatch[1]),
    host,
    peerPort: port(parts[1]),
    electionPort: port(parts[2]),
    role,
    clientHost: client.host,
    clientPort: client.port,
  };
}
