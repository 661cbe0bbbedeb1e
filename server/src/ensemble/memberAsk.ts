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

export async function askMember<T>(transport: MemberTransport, member: MemberAddress, spec: AskSpec<T>): Promise<Asked<T>> {
  try {
    const answer = await transport.fourLetterWord(member, spec.word, spec.purpose);
    if (!answer.ok) return { ok: false, reason: answer.message };
    if (isNotServing(answer.text)) return { ok: false, reason: 'not serving: it is not part of a quorum', notServing: true };
    if (!blockedWord(answer.text)) return { ok: true, value: spec.fromText(answer.text) };
    if (spec.admin && member.adminPort !== null) {
      const viaAdmin = await transport.admin(member, spec.admin.command, spec.purpose);
      if (viaAdmin.ok) {
        const body = readAdminBody(viaAdmin.text);
        if (body.kind === 'ok') return { ok: true, value: spec.admin.fromBody(body.value) };
      }
    }
    return {
      ok: false,
      reason: `${spec.word} is not in ${WHITELIST_SETTING} and the AdminServer did not answer: add ${spec.word} to ${WHITELIST_SETTING} (or enable the AdminServer)`,
    };
  } catch (error) {
    return { ok: false, reason: `${spec.word} failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
