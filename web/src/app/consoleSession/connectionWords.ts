/**
 * How the console reaches an ensemble and who ZooKeeper sees it as, in words: the header's chip,
 * its full label, and the sentence NO_AUTH explanations start with ("ZooKeeper sees Keeper as
 * sasl:keeper, ip:127.0.0.1"). Pure: the facts come from the console session (whoAmI, asked by the
 * server after every connection and re-authentication).
 */
import type { ConsoleConnectionFacts, ConsoleIdentityEntry } from '@keeper/shared';

/** The schemes an ACL names a client by, most specific first; the address last (it changes with routes). */
const SCHEME_ORDER = ['sasl', 'x509', 'digest', 'ip'];

function rank(scheme: string): number {
  const i = SCHEME_ORDER.indexOf(scheme);
  return i === -1 ? SCHEME_ORDER.length - 1 : i;
}

/** Identities in ACL notation, sasl and x509 before the address: "sasl:keeper, ip:127.0.0.1". */
export function identityList(identity: readonly ConsoleIdentityEntry[]): string {
  return [...identity]
    .sort((a, b) => rank(a.scheme) - rank(b.scheme))
    .map((i) => `${i.scheme}:${i.id}`)
    .join(', ');
}

/** The identities an ACL entry of its own would name (sasl, x509, digest): not the address. */
export function namedIdentities(identity: readonly ConsoleIdentityEntry[]): ConsoleIdentityEntry[] {
  return identity.filter((i) => i.scheme !== 'ip').sort((a, b) => rank(a.scheme) - rank(b.scheme));
}

/** "ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1", from whoAmI's answer. */
export function seenAs(identity: readonly ConsoleIdentityEntry[]): string {
  return identity.length > 0 ? `ZooKeeper sees Keeper as ${identityList(identity)}` : 'ZooKeeper sees Keeper as no one but world:anyone';
}

/**
 * "ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1", or why it cannot be said; null when nothing
 * is known yet (whoAmI not answered, or a server from before TLS and SASL).
 */
export function seenAsSentence(facts: ConsoleConnectionFacts | null | undefined): string | null {
  if (!facts) return null;
  if (facts.identity !== null) return seenAs(facts.identity);
  return facts.identityNote ? `ZooKeeper does not say who it sees Keeper as (${facts.identityNote})` : null;
}

export interface ConnectionChip {
  /** A few words for the header: "TLS · sasl:keeper", "TLS unverified · SASL". */
  text: string;
  /** Everything, for the title and screen readers. */
  label: string;
  /** True when the configuration is unsafe (TLS without verification): the chip is amber, and stays visible on a phone. */
  warn: boolean;
}

/**
 * The header's chip for a secured connection; null for plain TCP without SASL (the sandbox's
 * usual case: nothing to say there; the session's popover still says "plain TCP").
 */
export function connectionChip(facts: ConsoleConnectionFacts | null | undefined): ConnectionChip | null {
  if (!facts || (facts.tls === null && facts.sasl === null && facts.warning === null)) return null;
  const warn = facts.warning !== null;
  const named = facts.identity ? namedIdentities(facts.identity).map((i) => `${i.scheme}:${i.id}`) : [];
  const transport = facts.tls === null ? null : warn ? 'TLS unverified' : 'TLS';
  // Before whoAmI answers, the mechanism is what is known; after, the identity it gave.
  const who = named.length > 0 ? named.join(' · ') : facts.sasl !== null ? 'SASL' : null;
  const text = [transport, who].filter((p): p is string => p !== null).join(' · ');
  const seenAs = seenAsSentence(facts);
  const label = [
    `Connection: ${facts.tls ?? 'plain TCP'}`,
    facts.sasl ? `SASL ${facts.sasl}` : 'no SASL',
    ...(seenAs ? [seenAs] : []),
    ...(facts.warning ? [`Warning: ${facts.warning}`] : []),
  ].join('. ');
  return { text, label, warn };
}
