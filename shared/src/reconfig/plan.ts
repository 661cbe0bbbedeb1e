/**
 * The resize plan (issue 24, docs/design/reconfig.md): from the configuration `/zookeeper/config` gave
 * and the change asked for, either the refusals or the ordered steps, one ZooKeeper incremental
 * reconfig each, in the safe order:
 *
 *   1. add observers, then voters;          (the quorum only grows first)
 *   2. promote observers to voters;
 *   3. demote voters, remove observers, remove voters, the leader's step last (one election).
 *
 * Every step keeps a majority of the voters before it in the configuration after it (checked
 * here for each step, refused when impossible: 2 voters to 1). What needs a typed confirmation
 * (fewer than 3 voters left, removing the member Keeper is connected to) is said with the phrase.
 */
import type { ConfiguredRole } from '../ensemble/parse/serverLine.js';
import { quorumSize, tolerance } from '../ensemble/quorum.js';
import { endpointsOf, parseAddLine, parseDynamicConfig, withRole, type ConfigMember } from './dynamicConfig.js';

export interface ReconfigChange {
  /** `server.N=host:quorumPort:electionPort[:role];[clientHost:]clientPort` lines. */
  add?: readonly string[];
  /** Member ids, as text ("3"). */
  remove?: readonly string[];
  /** Member id -> the role it should have. */
  roles?: Readonly<Record<string, string>>;
}

export interface ReconfigPlanInput {
  /** `/zookeeper/config`'s text: `server.N=` lines and `version=`. */
  configText: string;
  change: ReconfigChange;
  /** The leader's id from the poller; null when unknown. */
  leaderId: number | null;
  /** The member Keeper's own session is on; null when unknown. */
  connectedMemberId: number | null;
}

export type ReconfigStepKind = 'add' | 'promote' | 'demote' | 'remove';

export interface EnsembleSize {
  voters: number;
  observers: number;
  tolerates: number;
  /** "3 voters tolerate 1 failure" (+ "; 1 observer"). */
  sentence: string;
}

export interface ReconfigStepPlan {
  /** 1-based. */
  index: number;
  kind: ReconfigStepKind;
  memberId: number;
  /** The member's role after this step (null when removed). */
  role: ConfiguredRole | null;
  /** ZooKeeper's incremental arguments: one of them is set. */
  joining: string | null;
  leaving: string | null;
  /** The same in zkCli's words (Keeper adds `-v <fromConfig>` when it runs the step). */
  zkCli: string;
  /** This step takes out or demotes the leader: an election follows. */
  leader: boolean;
  before: EnsembleSize;
  after: EnsembleSize;
  /** "Add member 4 as a voter: 3 voters tolerate 1 failure → 4 voters tolerate 1 failure". */
  sentence: string;
}

export type ReconfigRiskId = 'fewer-than-3-voters' | 'removes-keepers-member';

export interface ReconfigRisk {
  id: ReconfigRiskId;
  sentence: string;
}

export interface ReconfigPlan {
  ok: true;
  /** The version read at planning, as printed (hex): the first step's fromConfig. */
  fromConfig: string;
  steps: ReconfigStepPlan[];
  before: EnsembleSize;
  after: EnsembleSize;
  /** "3 voters tolerate 1 failure → 5 voters tolerate 2 failures". */
  sizeSentence: string;
  /** The configuration's members once every step is done. */
  membersAfter: ConfigMember[];
  risks: ReconfigRisk[];
  /** What must be typed to start it (risks present), else null. */
  confirmationPhrase: string | null;
}

export interface ReconfigRefused {
  ok: false;
  refusals: string[];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function ensembleSize(members: readonly Pick<ConfigMember, 'role'>[]): EnsembleSize {
  const voters = members.filter((m) => m.role === 'participant').length;
  const observers = members.length - voters;
  const tolerates = tolerance(voters);
  const sentence =
    `${plural(voters, 'voter')} ${voters === 1 ? 'tolerates' : 'tolerate'} ${plural(tolerates, 'failure')}` +
    (observers > 0 ? `; ${plural(observers, 'observer')}` : '');
  return { voters, observers, tolerates, sentence };
}

const roleWord = (role: ConfiguredRole) => (role === 'participant' ? 'a voter' : 'an observer');

/** Equal, ignoring case and surrounding or repeated spaces. */
export function reconfigConfirmationMatches(phrase: string | null, typed: string | null | undefined): boolean {
  if (phrase === null) return true;
  const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
  return typeof typed === 'string' && norm(typed) === norm(phrase);
}

interface Draft {
  kind: ReconfigStepKind;
  member: ConfigMember;
  role: ConfiguredRole | null;
  joining: string | null;
}

/** The member as a joining line makes it: its role and its line as sent. */
function applied(d: Draft): ConfigMember {
  const value = d.joining === null ? d.member.value : d.joining.slice(d.joining.indexOf('=') + 1);
  return { ...d.member, role: d.role ?? d.member.role, value };
}

export function planReconfig(input: ReconfigPlanInput): ReconfigPlan | ReconfigRefused {
  const config = parseDynamicConfig(input.configText);
  const refusals: string[] = [];
  if (config.version === null)
    refusals.push('/zookeeper/config has no version= line: this ensemble has no dynamic configuration (ZooKeeper 3.5+ with reconfigEnabled)');
  if (config.members.length === 0) refusals.push('/zookeeper/config lists no server.N= member');
  const current = new Map(config.members.map((m) => [m.id, m]));
  const change = input.change;

  // ---- adds ----
  const adds: Draft[] = [];
  for (const text of change.add ?? []) {
    const parsed = parseAddLine(text);
    if (!parsed.ok) {
      refusals.push(parsed.reason);
      continue;
    }
    const m = parsed.member;
    const existing = current.get(m.id);
    if (existing) refusals.push(`member ${m.id} is already in the configuration (as ${existing.role}); to change its role use roles, not add`);
    else if (adds.some((a) => a.member.id === m.id)) refusals.push(`member ${m.id} is added twice`);
    else adds.push({ kind: 'add', member: m, role: m.role, joining: parsed.line });
  }

  // ---- removes ----
  const removes: ConfigMember[] = [];
  for (const text of change.remove ?? []) {
    const id = /^\d{1,10}$/.test(String(text).trim()) ? Number(String(text).trim()) : null;
    const member = id === null ? undefined : current.get(id);
    if (id === null) refusals.push(`${JSON.stringify(String(text).slice(0, 40))} is not a member id`);
    else if (!member) refusals.push(`member ${id} is not in the configuration: nothing to remove`);
    else if (removes.some((r) => r.id === id)) refusals.push(`member ${id} is removed twice`);
    else removes.push(member);
  }

  // ---- role changes ----
  const roleChanges: Draft[] = [];
  for (const [key, wanted] of Object.entries(change.roles ?? {})) {
    const id = /^\d{1,10}$/.test(key) ? Number(key) : null;
    const member = id === null ? undefined : current.get(id);
    if (wanted !== 'participant' && wanted !== 'observer') {
      refusals.push(`the role of member ${key.slice(0, 40)} must be participant or observer, not ${JSON.stringify(String(wanted).slice(0, 40))}`);
    } else if (id === null || !member) {
      refusals.push(
        adds.some((a) => a.member.id === id)
          ? `member ${id} is being added: give its role in its server line`
          : `member ${key.slice(0, 40)} is not in the configuration: its role cannot change`,
      );
    } else if (removes.some((r) => r.id === id)) refusals.push(`member ${id} is removed: its role cannot change too`);
    else if (member.role === wanted) refusals.push(`member ${id} is already ${roleWord(wanted)}`);
    else roleChanges.push({ kind: wanted === 'participant' ? 'promote' : 'demote', member, role: wanted, joining: withRole(member, wanted) });
  }

  // ---- endpoints: an added member may not share a port with any member it will stand beside ----
  const owners = new Map<string, number>();
  for (const m of [...config.members, ...adds.map((a) => a.member)]) {
    for (const endpoint of endpointsOf(m)) {
      const owner = owners.get(endpoint);
      if (owner !== undefined && owner !== m.id) refusals.push(`members ${owner} and ${m.id} would both use ${endpoint}`);
      else owners.set(endpoint, m.id);
    }
  }

  if (adds.length + removes.length + roleChanges.length === 0 && refusals.length === 0) refusals.push('nothing to change: add, remove or change a role');

  const finalMembers = new Map(current);
  for (const r of removes) finalMembers.delete(r.id);
  for (const d of [...adds, ...roleChanges]) finalMembers.set(d.member.id, applied(d));
  const after = ensembleSize([...finalMembers.values()]);
  if (after.voters === 0 && refusals.length === 0) refusals.push('the change leaves no voter: at least one member must stay a participant');
  if (refusals.length > 0) return { ok: false, refusals: [...new Set(refusals)] };

  // ---- order ----
  const byId = (a: Draft, b: Draft) => a.member.id - b.member.id;
  const isLeader = (id: number) => input.leaderId !== null && id === input.leaderId;
  const removeDrafts: Draft[] = removes.map((m) => ({ kind: 'remove', member: m, role: null, joining: null }));
  const ordered: Draft[] = [
    ...adds.filter((d) => d.role === 'observer').sort(byId),
    ...adds.filter((d) => d.role === 'participant').sort(byId),
    ...roleChanges.filter((d) => d.kind === 'promote').sort(byId),
    // Voters leave last, the leader's step the very last of all.
    ...[
      ...roleChanges.filter((d) => d.kind === 'demote').sort(byId),
      ...removeDrafts.filter((d) => d.member.role === 'observer').sort(byId),
      ...removeDrafts.filter((d) => d.member.role === 'participant').sort(byId),
    ].sort((a, b) => Number(isLeader(a.member.id)) - Number(isLeader(b.member.id))),
  ];

  const steps: ReconfigStepPlan[] = [];
  let members = new Map(current);
  for (const draft of ordered) {
    const next = new Map(members);
    if (draft.kind === 'remove') next.delete(draft.member.id);
    else next.set(draft.member.id, applied(draft));
    const votersBefore = [...members.values()].filter((m) => m.role === 'participant').map((m) => m.id);
    const votersAfter = new Set([...next.values()].filter((m) => m.role === 'participant').map((m) => m.id));
    const kept = votersBefore.filter((id) => votersAfter.has(id)).length;
    const before = ensembleSize([...members.values()]);
    const stepAfter = ensembleSize([...next.values()]);
    const index = steps.length + 1;
    const id = draft.member.id;
    if (kept < quorumSize(votersBefore.length)) {
      return {
        ok: false,
        refusals: [
          `step ${index} (${draft.kind} member ${id}) would keep ${kept} of the ${plural(votersBefore.length, 'voter')} before it, fewer than a majority (${quorumSize(votersBefore.length)}): ` +
            'Keeper never changes the voters that much at once',
        ],
      };
    }
    const leader = isLeader(id) && draft.member.role === 'participant';
    const what =
      draft.kind === 'add'
        ? `Add member ${id} as ${roleWord(draft.role!)}`
        : draft.kind === 'remove'
          ? `Remove member ${id}${leader ? ', the leader (an election follows)' : draft.member.role === 'observer' ? ' (an observer)' : ''}`
          : `Make member ${id} ${roleWord(draft.role!)}${leader ? ' (the leader: an election follows)' : ''}`;
    steps.push({
      index,
      kind: draft.kind,
      memberId: id,
      role: draft.role,
      joining: draft.joining,
      leaving: draft.kind === 'remove' ? String(id) : null,
      zkCli: draft.joining !== null ? `reconfig -add ${draft.joining}` : `reconfig -remove ${id}`,
      leader,
      before,
      after: stepAfter,
      sentence: `${what}: ${before.sentence} → ${stepAfter.sentence}`,
    });
    members = next;
  }

  const before = ensembleSize(config.members);
  const risks: ReconfigRisk[] = [];
  const phrases: string[] = [];
  if (after.voters < 3) {
    risks.push({
      id: 'fewer-than-3-voters',
      sentence:
        after.voters === 1
          ? 'It leaves 1 voter: a single server has no failure tolerance; if it stops, the ensemble stops.'
          : `It leaves ${after.voters} voters, which tolerate no failure: a quorum needs all of them, so any one failure stops the ensemble.`,
    });
    phrases.push(`leave ${plural(after.voters, 'voter')}`);
  }
  if (input.connectedMemberId !== null && removes.some((r) => r.id === input.connectedMemberId)) {
    risks.push({
      id: 'removes-keepers-member',
      sentence: `It removes member ${input.connectedMemberId}, which Keeper's own session is connected to: the session moves to another member when it leaves.`,
    });
    phrases.push(`remove member ${input.connectedMemberId}`);
  }
  return {
    ok: true,
    fromConfig: config.version!,
    steps,
    before,
    after,
    sizeSentence: `${before.sentence} → ${after.sentence}`,
    membersAfter: [...finalMembers.values()].sort((a, b) => a.id - b.id),
    risks,
    confirmationPhrase: phrases.length > 0 ? phrases.join(' and ') : null,
  };
}
