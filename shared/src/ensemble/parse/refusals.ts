/**
 * The two answers that are not data: a member outside a quorum ("not currently serving",
 * even to srvr; `ruok` still says imok, so it proves nothing) and a four-letter word that
 * 4lw.commands.whitelist blocks (since 3.5.3 only srvr is allowed by default).
 */

const NOT_SERVING = /This ZooKeeper instance is not currently serving requests/i;
const NOT_WHITELISTED = /^\s*([a-z]{4}) is not executed because it is not in the whitelist\.?/im;

export function isNotServing(text: string): boolean {
  return NOT_SERVING.test(text);
}

/** The blocked word ("mntr") when the answer says it is not whitelisted, else null. */
export function blockedWord(text: string): string | null {
  return NOT_WHITELISTED.exec(text)?.[1]?.toLowerCase() ?? null;
}
