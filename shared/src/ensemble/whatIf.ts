/**
 * "If member X goes down now": does the quorum hold, and how many more failures would it
 * take? Answered from the live member states, not the configuration alone: a member that is
 * already down changes the answer.
 */
import type { MemberStatus, SizingAnswer } from './types.js';
import { canLose, hasQuorumWith, isObserver, isServing, quorumSize } from './quorum.js';

export type WhatIf = NonNullable<SizingAnswer['whatIf']>;

type Member = Pick<MemberStatus, 'id' | 'address' | 'host' | 'state' | 'configuredRole'>;

/** The member named by id ("2"), address ("host:port") or host alone when only one member has it. */
export function findMember<T extends Member>(members: readonly T[], name: string): T | null {
  const text = name.trim();
  if (/^\d+$/.test(text)) {
    const byId = members.find((m) => m.id === Number(text));
    if (byId) return byId;
  }
  const byAddress = members.find((m) => m.address === text);
  if (byAddress) return byAddress;
  const byHost = members.filter((m) => m.host === text);
  return byHost.length === 1 ? byHost[0]! : null;
}

function label(m: Member): string {
  return m.id === null ? m.address : `member ${m.id} (${m.address})`;
}

export function whatIfDown(members: readonly Member[], target: Member): WhatIf {
  const voters = members.filter((m) => !isObserver(m));
  const servingVoters = voters.filter(isServing).length;
  const name = label(target);
  if (isObserver(target)) {
    const holds = hasQuorumWith(voters.length, servingVoters);
    return {
      down: target.address,
      quorumHolds: holds,
      canLoseAfter: holds ? canLose(voters.length, servingVoters) : 0,
      sentence: `${name} is an observer: it does not vote, so the quorum is unaffected${holds ? '' : ' (but there is no quorum now anyway)'}; its clients reconnect to other members.`,
    };
  }
  const alreadyDown = !isServing(target);
  const after = alreadyDown ? servingVoters : servingVoters - 1;
  const holds = hasQuorumWith(voters.length, after);
  const more = holds ? canLose(voters.length, after) : 0;
  const q = quorumSize(voters.length);
  let sentence: string;
  if (alreadyDown) {
    sentence =
      `${name} is not serving already (${target.state}): ${after} of ${voters.length} voters serve; ` +
      (holds ? `the quorum (${q}) holds and can lose ${more} more.` : `there is no quorum (${q} needed).`);
  } else if (holds) {
    sentence =
      `If ${name} goes down now: ${after} of ${voters.length} voters remain, the quorum (${q}) holds` +
      (more === 0 ? ' but with no margin: one more failure stops the ensemble.' : ` and it can lose ${more} more.`);
    if (target.state === 'leader') sentence += ' A new leader is elected first: writes pause briefly and its clients reconnect to other members.';
    else sentence += ' Its clients reconnect to other members.';
  } else {
    sentence = `If ${name} goes down now: only ${after} of ${voters.length} voters remain, below the quorum of ${q}: the ensemble stops serving reads and writes. Do not take it down.`;
  }
  return { down: target.address, quorumHolds: holds, canLoseAfter: more, sentence };
}
