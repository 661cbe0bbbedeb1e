/**
 * A starting point for the line of a member to add (the sizing view's "Add a member"): the next
 * free id, and an address in the pattern the members already follow. Members on one host whose
 * ports step with their id (the sandbox: 2191+id, 2881+id, 3881+id) give the next ports on that
 * host; members whose host names carry their id (zk1, zk2) give the next name with the same
 * ports; anything else copies the highest member's line for the operator to edit (the plan then
 * names any port two members would share).
 */
import type { ConfiguredRole } from '../ensemble/parse/serverLine.js';
import type { ConfigMember } from './dynamicConfig.js';

/**
 * The id after the highest one in use (or being added). A gap is a removed member's id, never
 * offered again: its old data directory (its myid, its snapshots) may still exist and come back
 * with a stale view, and the learners an operator starts for a resize (the sandbox's `add <id>`)
 * take ids above the members, so the suggestion is the learner already running.
 */
export function nextFreeId(members: readonly Pick<ConfigMember, 'id'>[], taken: readonly number[] = []): number {
  return Math.max(0, ...members.map((m) => m.id), ...taken) + 1;
}

const hostText = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** Every member's port minus its id, when that is the same for all of them (a port that steps with the id). */
function stepBase(members: readonly ConfigMember[], port: (m: ConfigMember) => number | null): number | null {
  const bases = new Set(members.map((m) => (port(m) === null ? NaN : port(m)! - m.id)));
  if (bases.size !== 1) return null;
  const [base] = [...bases];
  return Number.isFinite(base) ? base! : null;
}

export function suggestJoinerLine(members: readonly ConfigMember[], id: number, role: ConfiguredRole = 'participant'): string {
  const sorted = [...members].sort((a, b) => a.id - b.id);
  const last = sorted.at(-1);
  if (!last) return `server.${id}=zk${id}:2888:3888:${role};2181`;
  const oneHost = new Set(sorted.map((m) => m.host)).size === 1 && new Set(sorted.map((m) => m.clientHost ?? m.host)).size === 1;
  const peer = stepBase(sorted, (m) => m.peerPort);
  const election = stepBase(sorted, (m) => m.electionPort);
  const client = stepBase(sorted, (m) => m.clientPort);
  if (sorted.length > 1 && oneHost && peer !== null && election !== null && client !== null) {
    return `server.${id}=${hostText(last.host)}:${peer + id}:${election + id}:${role};${hostText(last.clientHost ?? last.host)}:${client + id}`;
  }
  const named = /^(.*?)(\d+)(\D*)$/.exec(last.host);
  const host = named && Number(named[2]) === last.id ? `${named[1]}${id}${named[3]}` : last.host;
  const clientHost = last.clientHost === null ? null : last.clientHost === last.host ? host : last.clientHost;
  return `server.${id}=${hostText(host)}:${last.peerPort ?? 2888}:${last.electionPort ?? 3888}:${role};${clientHost === null ? '' : `${hostText(clientHost)}:`}${last.clientPort ?? 2181}`;
}
