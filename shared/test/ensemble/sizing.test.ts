/**
 * Quorum and sizing math over every small ensemble: voters 0..9 x observers 0..3 x voters
 * down 0..voters, checked against an oracle that counts instead of using the formulas.
 */
import { describe, expect, it } from 'vitest';
import { canLose, findMember, quorumSize, sizingReport, summarizeQuorum, tolerance, whatIfDown } from '../../src/ensemble/index.js';
import { sizingReportSchema, type MemberState, type MemberStatus } from '../../src/ensemble/types.js';

/** The smallest group such that any two such groups share a voter: a majority. */
function oracleQuorum(voters: number): number {
  for (let q = 1; ; q++) if (2 * q > voters) return q;
}
function oracleTolerance(voters: number): number {
  if (voters === 0) return 0;
  let f = 0;
  while (voters - (f + 1) >= oracleQuorum(voters)) f++;
  return f;
}
function oracleCanLose(voters: number, down: number): number {
  let k = 0;
  while (voters - down - (k + 1) >= oracleQuorum(voters)) k++;
  return voters - down >= oracleQuorum(voters) ? k : 0;
}

type M = Pick<MemberStatus, 'id' | 'address' | 'host' | 'state' | 'configuredRole'>;
function ensemble(voters: number, observers: number, down: number, leaderAt = down): M[] {
  const members: M[] = [];
  for (let i = 0; i < voters; i++) {
    const state: MemberState = i < down ? 'down' : i === leaderAt ? 'leader' : 'follower';
    members.push({ id: i + 1, address: `zk${i + 1}:2181`, host: `zk${i + 1}`, state, configuredRole: 'participant' });
  }
  for (let j = 0; j < observers; j++) {
    members.push({ id: voters + j + 1, address: `obs${j + 1}:2181`, host: `obs${j + 1}`, state: 'observer', configuredRole: 'observer' });
  }
  return members;
}

const CASES: [number, number, number][] = [];
for (let voters = 0; voters <= 9; voters++)
  for (let observers = 0; observers <= 3; observers++) for (let down = 0; down <= voters; down++) CASES.push([voters, observers, down]);

describe('quorum arithmetic', () => {
  it('matches the counting oracle for 0..99 voters', () => {
    for (let voters = 1; voters <= 99; voters++) {
      expect(quorumSize(voters)).toBe(oracleQuorum(voters));
      expect(tolerance(voters)).toBe(oracleTolerance(voters));
      for (let serving = 0; serving <= voters; serving++) expect(canLose(voters, serving)).toBe(oracleCanLose(voters, voters - serving));
    }
    expect(tolerance(0)).toBe(0);
  });

  it('gives the textbook figures', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(tolerance)).toEqual([0, 0, 1, 1, 2, 2, 3]);
    expect([1, 2, 3, 4, 5, 6, 7].map(quorumSize)).toEqual([1, 2, 2, 3, 3, 4, 4]);
  });
});

describe('sizingReport over voters x observers x down', () => {
  it.each(CASES)('%i voters, %i observers, %i down', (voters, observers, down) => {
    const report = sizingReport({ voters, observers, votersDown: down });
    expect(sizingReportSchema.parse(report)).toEqual(report);
    expect(report.input).toEqual({ voters, observers, votersDown: down });
    expect(report.quorumSize).toBe(voters === 0 ? 1 : oracleQuorum(voters));
    expect(report.tolerates).toBe(oracleTolerance(voters));
    const hasQuorum = voters > 0 && voters - down >= oracleQuorum(voters);
    expect(report.hasQuorumNow).toBe(hasQuorum);
    expect(report.canLoseNow).toBe(hasQuorum ? oracleCanLose(voters, down) : 0);
    // One in maintenance plus one failure: two voters gone and still a majority.
    expect(report.survivesMaintenancePlusFailure).toBe(voters > 0 && voters - 2 >= oracleQuorum(voters));
    // Observers never change the arithmetic.
    const withoutObservers = sizingReport({ voters, observers: 0, votersDown: down });
    expect([report.quorumSize, report.tolerates, report.canLoseNow, report.hasQuorumNow]).toEqual([
      withoutObservers.quorumSize,
      withoutObservers.tolerates,
      withoutObservers.canLoseNow,
      withoutObservers.hasQuorumNow,
    ]);

    const text = report.notes.join(' ');
    if (voters > 2 && voters % 2 === 0) expect(text).toMatch(/even number of voters adds no failure tolerance/);
    else expect(text).not.toMatch(/even number/);
    if (voters > 1) expect(text).toMatch(/writes get slower as voters are added/);
    if (voters > 1) expect(text).toMatch(/reads .* scale with members/);
    if (observers > 0 && voters > 0) expect(text).toMatch(/observers? adds? read capacity .* without slowing writes/);
    if (voters === 1) expect(text).toMatch(/no reliability/);
    if (voters === 2) expect(text).toMatch(/tolerate no failure/);
    if (voters === 0) expect(text).toMatch(/no ensemble/);

    if (voters > 0 && !hasQuorum) expect(report.recommendation).toMatch(/^No quorum now: bring back \d+ voters?/);
    else if (voters > 2 && down > 0 && report.canLoseNow === 0) expect(report.recommendation).toMatch(/^At the edge/);
    else if (voters === 3) expect(report.recommendation).toMatch(/recommends 5/);
    else if (voters === 5) expect(report.recommendation).toMatch(/maintenance plus one unexpected failure/);
    else if (voters > 2 && voters % 2 === 0) expect(report.recommendation).toContain(`Use ${voters - 1} or ${voters + 1} voters`);
    expect(report.recommendation.length).toBeGreaterThan(10);
  });

  it('clamps what it cannot mean', () => {
    expect(sizingReport({ voters: 3, observers: 0, votersDown: 7 }).input.votersDown).toBe(3);
    expect(sizingReport({ voters: 3, observers: 0, votersDown: -1 }).input.votersDown).toBe(0);
  });
});

describe('summarizeQuorum over voters x observers x down', () => {
  it.each(CASES.filter(([v]) => v > 0))('%i voters, %i observers, %i down', (voters, observers, down) => {
    const members = ensemble(voters, observers, down, voters - down >= oracleQuorum(voters) ? down : -1);
    const q = summarizeQuorum(members);
    expect(q.voters).toBe(voters);
    expect(q.observers).toBe(observers);
    expect(q.votersServing).toBe(voters - down);
    expect(q.observersServing).toBe(observers);
    expect(q.hasQuorum).toBe(voters - down >= oracleQuorum(voters));
    expect(q.canLoseNow).toBe(q.hasQuorum ? oracleCanLose(voters, down) : 0);
    expect(q.sentence).toMatch(q.hasQuorum ? new RegExp(`^${voters - down} of ${voters} voters serving; tolerates`) : /^No quorum/);
  });

  it('trusts a serving leader even when Keeper cannot see enough voters', () => {
    const members: M[] = ensemble(5, 0, 0).map((m, i) => (i < 3 ? { ...m, state: 'unreachable' as const } : m));
    members[3] = { ...members[3]!, state: 'leader' };
    const q = summarizeQuorum(members);
    expect(q).toMatchObject({ hasQuorum: true, votersServing: 2, canLoseNow: 0 });
    expect(q.sentence).toContain('cannot tell');
  });

  it('counts a member that says observer as an observer when its role is not configured', () => {
    const q = summarizeQuorum([
      { state: 'leader', configuredRole: null },
      { state: 'follower', configuredRole: null },
      { state: 'follower', configuredRole: null },
      { state: 'observer', configuredRole: null },
    ]);
    expect(q).toMatchObject({ voters: 3, observers: 1, tolerates: 1 });
  });
});

describe('whatIfDown over voters x observers x down', () => {
  it.each(CASES.filter(([v]) => v > 0))('%i voters, %i observers, %i down', (voters, observers, down) => {
    const members = ensemble(voters, observers, down);
    const q = oracleQuorum(voters);
    for (const target of members) {
      const result = whatIfDown(members, target);
      const serving = voters - down;
      const targetIsServingVoter = target.configuredRole === 'participant' && target.state !== 'down';
      const after = serving - (targetIsServingVoter ? 1 : 0);
      expect(result.down).toBe(target.address);
      expect(result.quorumHolds).toBe(after >= q);
      expect(result.canLoseAfter).toBe(after >= q ? after - q : 0);
      if (target.configuredRole === 'observer') expect(result.sentence).toMatch(/observer: it does not vote/);
      else if (target.state === 'down') expect(result.sentence).toMatch(/not serving already/);
      else if (after < q) expect(result.sentence).toMatch(/below the quorum .* Do not take it down/);
      else if (after === q) expect(result.sentence).toMatch(/no margin/);
      if (target.state === 'leader' && after >= q) expect(result.sentence).toMatch(/new leader/);
    }
  });
});

describe('findMember', () => {
  const members = ensemble(3, 1, 0);
  it('finds by id, address or unique host', () => {
    expect(findMember(members, '2')?.address).toBe('zk2:2181');
    expect(findMember(members, 'zk3:2181')?.id).toBe(3);
    expect(findMember(members, 'obs1')?.id).toBe(4);
    expect(findMember(members, ' 1 ')?.id).toBe(1);
  });
  it('returns null for unknown or ambiguous names', () => {
    expect(findMember(members, '9')).toBeNull();
    expect(findMember(members, 'zk9:2181')).toBeNull();
    const twoOnOneHost = [
      { ...members[0]!, host: 'h', address: 'h:1' },
      { ...members[1]!, host: 'h', address: 'h:2' },
    ];
    expect(findMember(twoOnOneHost, 'h')).toBeNull();
    expect(findMember(twoOnOneHost, 'h:2')?.address).toBe('h:2');
  });
});
