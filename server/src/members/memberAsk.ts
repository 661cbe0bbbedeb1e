/**
 * Asking one member for one listing (cons, dump, wchs, wchp) the way the collectors need:
 * the four-letter word first, the AdminServer's equivalent when the word is not
 * whitelisted, and otherwise a gap that says why, in the operator's terms.
 */
import { blockedWord, isNotServing, readAdminBody, WHITELIST_SETTING } from '@keeper/shared';
import type { Purpose } from './counters.js';
import type { MemberAddress, MemberTransport } from './transport.js';

export type Asked<T> = { ok: true; value: T } | { ok: false; reason: string; notServing?: boolean };

export interface AskSpec<T> {
  word: string;
  fromText: (text: string) => T;
  /** AdminServer command and reader, when there is an equivalent. */
  admin?: { command: string; fromBody: (body: Record<string, unknown>) => T };
  purpose: Purpose;
}

async function viaAdmin<T>(transport: MemberTransport, member: MemberAddress, spec: AskSpec<T>): Promise<{ ok: true; value: T } | null> {
  if (!spec.admin || member.adminPort === null) return null;
  const answer = await transport.admin(member, spec.admin.command, spec.purpose);
  if (!answer.ok) return null;
  const body = readAdminBody(answer.text);
  return body.kind === 'ok' ? { ok: true, value: spec.admin.fromBody(body.value) } : null;
}

/** Words that answer nothing when there is nothing to list; any other word's empty answer is a connection closed at once. */
const MAY_ANSWER_NOTHING: ReadonlySet<string> = new Set(['wchp', 'wchc']);

export async function askMember<T>(transport: MemberTransport, member: MemberAddress, spec: AskSpec<T>): Promise<Asked<T>> {
  try {
    let answer = await transport.fourLetterWord(member, spec.word, spec.purpose);
    if (answer.ok && answer.text === '' && !MAY_ANSWER_NOTHING.has(spec.word)) {
      answer = { ok: false, kind: 'closed', message: `${spec.word} to ${member.address}: connection closed at once, without an answer` };
    }
    if (!answer.ok && answer.kind === 'closed') {
      // At maxClientCnxns for Keeper's address: the AdminServer is not under that cap.
      return (
        (await viaAdmin(transport, member, spec)) ?? {
          ok: false,
          reason: `${answer.message}: it may have reached maxClientCnxns for Keeper's address (and has no AdminServer Keeper can ask)`,
        }
      );
    }
    if (!answer.ok) return { ok: false, reason: answer.message };
    if (isNotServing(answer.text)) return { ok: false, reason: 'not serving: it is not part of a quorum', notServing: true };
    if (!blockedWord(answer.text)) return { ok: true, value: spec.fromText(answer.text) };
    const admin = await viaAdmin(transport, member, spec);
    if (admin) return admin;
    return {
      ok: false,
      reason: `${spec.word} is not in ${WHITELIST_SETTING} and the AdminServer did not answer: add ${spec.word} to ${WHITELIST_SETTING} (or enable the AdminServer)`,
    };
  } catch (error) {
    return { ok: false, reason: `${spec.word} failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
