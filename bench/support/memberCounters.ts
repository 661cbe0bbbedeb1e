/**
 * The ensemble's own count of client requests: `srvr`'s `Received:` (packets received
 * from client connections) summed over every member. Independent of Keeper's counters.
 */
import { fourLetterWord } from '../../scripts/sandbox/index.js';
import type { SandboxMember } from '../../scripts/sandbox/index.js';

export interface PacketCounts {
  received: number;
  sent: number;
}

function field(srvr: string, name: string, member: SandboxMember): number {
  const match = new RegExp(`^${name}: (\\d+)`, 'm').exec(srvr);
  if (!match) throw new Error(`member ${member.id}: no "${name}:" in srvr answer: ${srvr.slice(0, 200)}`);
  return Number(match[1]);
}

export async function ensemblePackets(members: readonly SandboxMember[]): Promise<PacketCounts> {
  const answers = await Promise.all(members.map((m) => fourLetterWord(m.host, m.clientPort, 'srvr', 5_000).then((text) => ({ m, text }))));
  let received = 0;
  let sent = 0;
  for (const { m, text } of answers) {
    received += field(text, 'Received', m);
    sent += field(text, 'Sent', m);
  }
  return { received, sent };
}

/** The same counters per member (host:clientPort -> counts), for benches that need the split. */
export async function memberPackets(members: readonly SandboxMember[]): Promise<Map<string, PacketCounts>> {
  const answers = await Promise.all(members.map((m) => fourLetterWord(m.host, m.clientPort, 'srvr', 5_000).then((text) => ({ m, text }))));
  return new Map(answers.map(({ m, text }) => [`${m.host}:${m.clientPort}`, { received: field(text, 'Received', m), sent: field(text, 'Sent', m) }]));
}
