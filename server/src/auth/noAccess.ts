/**
 * Someone who proved who they are but whom no grant lets in: what they are told (their groups,
 * and the groups that would give access, with what each gives), and what the audit trail keeps.
 */
import { describeGrant, type Grant } from '@keeper/shared';

export interface NoAccess {
  name: string;
  groups: string[];
  /** Each grant in words: "billing (writer of prod: /app/billing)". */
  wouldGrant: string[];
}

export function noAccess(name: string, groups: readonly string[] | undefined, grants: readonly Grant[]): NoAccess {
  const seen = new Set<string>();
  const wouldGrant: string[] = [];
  for (const grant of grants) {
    const words = describeGrant(grant);
    if (seen.has(words)) continue;
    seen.add(words);
    wouldGrant.push(words);
  }
  return { name, groups: [...(groups ?? [])].slice(0, 50), wouldGrant: wouldGrant.slice(0, 50) };
}

export function noAccessSentence(refusal: NoAccess): string {
  const mine = refusal.groups.length > 0 ? `in the groups ${refusal.groups.join(', ')}` : 'in no group';
  const would = refusal.wouldGrant.length > 0 ? `; ask to be added to one of: ${refusal.wouldGrant.join('; ')}` : '; no group is granted anything here yet';
  return `${refusal.name} is ${mine}, none of which gives access to this Keeper${would}`;
}
