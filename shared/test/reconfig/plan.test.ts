/**
 * The resize planner: parsing /zookeeper/config and the lines to add, the refusals, the safe order
 * (adds first, the leader last), the majority-of-the-old-voters invariant on every plan over small
 * ensembles, and the risks that need a typed confirmation.
 */
import { describe, expect, it } from 'vitest';
import {
  configVersionNumber,
  ensembleSize,
  parseAddLine,
  parseDynamicConfig,
  planReconfig,
  quorumSize,
  reconfigConfirmationMatches,
  withRole,
  type ReconfigChange,
  type ReconfigPlan,
} from '../../src/index.js';

const line = (id: number, role = 'participant') => `server.${id}=127.0.0.1:${2880 + id}:${3880 + id}:${role};127.0.0.1:${2190 + id}`;
const config = (ids: number[], observers: number[] = [], version = '100000000') =>
  [...ids.map((id) => line(id)), ...observers.map((id) => line(id, 'observer')), `version=${version}`].join('\n');

function plan(text: string, change: ReconfigChange, leaderId: number | null = null, connectedMemberId: number | null = null) {
  return planReconfig({ configText: text, change, leaderId, connectedMemberId });
}
function ok(result: ReturnType<typeof planReconfig>): ReconfigPlan {
  if (!result.ok) throw new Error(`refused: ${result.refusals.join('; ')}`);
  return result;
}
function refused(result: ReturnType<typeof planReconfig>): string[] {
  if (result.ok) throw new Error('planned, expected refusals');
  return result.refusals;
}

describe('parseDynamicConfig', () => {
  it('reads the members, their own lines and the version as /zookeeper/config prints them', () => {
    const parsed = parseDynamicConfig(`${line(2)}\n${line(1)}\n${line(4, 'observer')}\nversion=10000000a\n`);
    expect(parsed.version).toBe('10000000a');
    expect(parsed.members.map((m) => [m.id, m.role, m.clientPort])).toEqual([
      [1, 'participant', 2191],
      [2, 'participant', 2192],
      [4, 'observer', 2194],
    ]);
    expect(parsed.members[0]!.value).toBe('127.0.0.1:2881:3881:participant;127.0.0.1:2191');
    expect(configVersionNumber('10000000a')).toBe(0x10000000an);
    expect(configVersionNumber('zz')).toBeNull();
  });

  it('has no version for a static configuration', () => {
    expect(parseDynamicConfig(line(1)).version).toBeNull();
  });
});

describe('parseAddLine', () => {
  it('takes ZooKeeper’s forms: with or without a role, a client host or only a port, IPv6', () => {
    expect(parseAddLine(line(4))).toMatchObject({ ok: true, member: { id: 4, role: 'participant', peerPort: 2884, electionPort: 3884, clientPort: 2194 } });
    expect(parseAddLine('server.5=zk5:2888:3888:observer;2181')).toMatchObject({ ok: true, member: { role: 'observer', clientPort: 2181 } });
    expect(parseAddLine('server.6=zk6:2888:3888;zk6:2181')).toMatchObject({ ok: true, member: { role: 'participant' } });
    expect(parseAddLine('server.7=[2001:db8::7]:2888:3888:participant;[2001:db8::7]:2181')).toMatchObject({ ok: true, member: { host: '2001:db8::7' } });
  });

  it.each([
    ['zk4:2888:3888;2181', 'no "="'],
    ['server.x=zk4:2888:3888;2181', 'server.<id>'],
    ['server.0=zk4:2888:3888;2181', 'from 1'],
    ['server.4=zk4:2888:3888', 'client part'],
    ['server.4=zk4:2888:3888;', 'client part'],
    ['server.4=zk4:2888;2181', 'host:quorumPort:electionPort'],
    ['server.4=zk4:2888:3888:leader;2181', 'participant or observer'],
    ['server.4=zk4:2888:99999;2181', 'out of range'],
    ['server.4=zk4:2888:2888;2181', 'must differ'],
    ['server.4=zk4:2888:3888;zk4:0', 'client port'],
    ['server.4=zk4:2888:3888;2181,server.5=zk5:2888:3888;2181', 'comma'],
    ['server.4=zk 4:2888:3888;2181', 'space'],
    ['server.4=a:1:2|b:3:4;2181', 'multi-address'],
  ])('refuses %s (%s)', (text, why) => {
    const parsed = parseAddLine(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(why);
  });
});

describe('parseAddLine: hosts and ports (issue 34 item 12)', () => {
  // What was planned (201) before: each would reach the zkCli line, the joiner's files and the admin's startCommand.
  it.each([
    ['server.4=127.0.0.1:2888:3888:participant;$(id):2494', 'the client host "$(id)" is not a host name or an IP address'],
    ['server.4=127.0.0.1:2888:3888:participant;`id`:2494', 'the client host "`id`" is not a host name or an IP address'],
    ['server.4=127.0.0.1:2888:3888:participant;-oProxyCommand=sh:2494', 'the client host "-oProxyCommand=sh" is not a host name or an IP address'],
    ['server.4=-oProxyCommand=sh:2888:3888:participant;2494', 'the host "-oProxyCommand=sh" is not a host name or an IP address'],
    ['server.4=-oProxyCommand:2888:3888:participant;2494', 'the host "-oProxyCommand" is not a host name or an IP address'],
    ['server.4=`id`:2888:3888;2181', 'the host "`id`" is not'],
    ['server.4=$(id):2888:3888;2181', 'the host "$(id)" is not'],
    ['server.4=zk4-:2888:3888;2181', 'the host "zk4-" is not'],
    ['server.4=zk_4-:2888:3888;2181', 'the host "zk_4-" is not'],
    ['server.4=zk..4:2888:3888;2181', 'the host "zk..4" is not'],
    ['server.4=300.1.1.1:2888:3888;2181', 'the host "300.1.1.1" is not'],
    ['server.4=[2001:db8::g]:2888:3888;2181', 'the host "[2001:db8::g]" is not'],
    ['server.4=[127.0.0.1]:2888:3888;2181', 'the host "[127.0.0.1]" is not'],
    ['server.4=zk4:2888:3888;::1:2181', 'the client part must be clientPort or clientHost:clientPort (an IPv6 address is written in brackets'],
    ['server.4=2001:db8::4:2888:3888;2181', 'the quorum part must be host:quorumPort:electionPort (an IPv6 address is written in brackets'],
    ['server.4=zk4:2888:3888;zk4:', 'the client port "" is not a port number'],
    ['server.4=zk4:28a8:3888;2181', 'the quorum port "28a8" is not a port number'],
    ['server.4=zk4:+2888:3888;2181', 'the quorum port "+2888" is not a port number'],
    ['server.4=zk4:2888:65536;2181', 'the election port "65536" is out of range (1..65535)'],
    ['server.4=zk4:2888:3888;0', 'the client port "0" is out of range'],
    ['server.4=zk4:2888:3888;zk4:0x89', 'the client port "0x89" is not a port number'],
  ])('refuses %s, naming the bad part', (text, why) => {
    const parsed = parseAddLine(text);
    expect(parsed).toMatchObject({ ok: false, reason: expect.stringContaining(why) });
  });

  it('the plan is refused with the same sentence, so nothing downstream sees the host', () => {
    const text = 'server.4=127.0.0.1:2884:3884:participant;$(id):2494';
    expect(refused(plan(config([1, 2, 3]), { add: [text] }))).toEqual([expect.stringContaining('the client host "$(id)" is not a host name or an IP address')]);
  });

  it.each([
    'server.4=zk4:2888:3888;2181',
    'server.4=zk-4.prod.example.com:2888:3888:observer;zk-4.prod.example.com:2181',
    'server.4=10.0.0.4:2888:3888:participant;0.0.0.0:2181',
    'server.4=[2001:db8::4]:2888:3888:participant;[::]:2181',
    'server.4=[::ffff:10.0.0.4]:2888:3888;[::ffff:10.0.0.4]:2181',
    'server.4=4zk.example:1:65535;65534',
    // Not RFC 1123, but real (Docker Compose's names) and nothing a shell reads.
    'server.4=project_zk_4:2888:3888;project_zk_4:2181',
  ])('accepts %s', (text) => {
    expect(parseAddLine(text)).toMatchObject({ ok: true });
  });
});

describe('withRole', () => {
  it('changes only the role word, appending one when there was none', () => {
    const [m] = parseDynamicConfig(line(2)).members;
    expect(withRole(m!, 'observer')).toBe('server.2=127.0.0.1:2882:3882:observer;127.0.0.1:2192');
    const [bare] = parseDynamicConfig('server.3=zk3:2888:3888;2181').members;
    expect(withRole(bare!, 'observer')).toBe('server.3=zk3:2888:3888:observer;2181');
    const [multi] = parseDynamicConfig('server.5=a:1:2|b:3:4:participant;2181').members;
    expect(withRole(multi!, 'observer')).toBe('server.5=a:1:2|b:3:4:observer;2181');
  });
});

describe('planReconfig: 3 -> 5 -> 3', () => {
  it('adds one member per step, each conditioned on the version read, and says what each size tolerates', () => {
    const p = ok(plan(config([1, 2, 3]), { add: [line(5), line(4)] }, 2));
    expect(p.fromConfig).toBe('100000000');
    expect(p.sizeSentence).toBe('3 voters tolerate 1 failure → 5 voters tolerate 2 failures');
    expect(p.steps.map((s) => [s.kind, s.memberId, s.joining, s.leaving])).toEqual([
      ['add', 4, line(4), null],
      ['add', 5, line(5), null],
    ]);
    expect(p.steps[0]!.sentence).toBe('Add member 4 as a voter: 3 voters tolerate 1 failure → 4 voters tolerate 1 failure');
    expect(p.steps[0]!.zkCli).toBe(`reconfig -add ${line(4)}`);
    expect(p.risks).toEqual([]);
    expect(p.confirmationPhrase).toBeNull();
  });

  it('removes one voter per step with the leader last, whatever order they were asked in', () => {
    const p = ok(plan(config([1, 2, 3, 4, 5]), { remove: ['4', '5'] }, 4));
    expect(p.steps.map((s) => [s.kind, s.memberId, s.leaving, s.leader])).toEqual([
      ['remove', 5, '5', false],
      ['remove', 4, '4', true],
    ]);
    expect(p.steps[1]!.sentence).toBe('Remove member 4, the leader (an election follows): 4 voters tolerate 1 failure → 3 voters tolerate 1 failure');
    expect(p.sizeSentence).toBe('5 voters tolerate 2 failures → 3 voters tolerate 1 failure');
  });

  it('replaces a member by adding before removing', () => {
    const p = ok(plan(config([1, 2, 3]), { add: [line(4)], remove: ['1'] }, 1));
    expect(p.steps.map((s) => `${s.kind} ${s.memberId}`)).toEqual(['add 4', 'remove 1']);
    expect(p.after.voters).toBe(3);
    expect(p.membersAfter.map((m) => m.id)).toEqual([2, 3, 4]);
  });
});

describe('planReconfig: order across kinds', () => {
  it('puts each kind in its place', () => {
    const p = ok(
      plan(
        config([1, 2, 3, 4, 5], [6, 7]),
        { add: [line(9), line(8, 'observer')], remove: ['6', '3', '4'], roles: { '7': 'participant', '2': 'observer' } },
        2,
      ),
    );
    expect(p.steps.map((s) => `${s.kind} ${s.memberId}`)).toEqual(['add 8', 'add 9', 'promote 7', 'remove 6', 'remove 3', 'remove 4', 'demote 2']);
    const demote = p.steps.at(-1)!;
    expect(demote.leader).toBe(true);
    expect(demote.joining).toBe('server.2=127.0.0.1:2882:3882:observer;127.0.0.1:2192');
    expect(p.membersAfter.find((m) => m.id === 2)!.value).toBe('127.0.0.1:2882:3882:observer;127.0.0.1:2192');
    expect(p.after).toMatchObject({ voters: 4, observers: 2 });
  });

  it('turns a voter into an observer and back', () => {
    const down = ok(plan(config([1, 2, 3, 4]), { roles: { '4': 'observer' } }, 1));
    expect(down.steps).toHaveLength(1);
    expect(down.steps[0]).toMatchObject({ kind: 'demote', memberId: 4, role: 'observer', leaving: null });
    expect(down.sizeSentence).toBe('4 voters tolerate 1 failure → 3 voters tolerate 1 failure; 1 observer');
    const up = ok(plan(config([1, 2, 3], [4]), { roles: { '4': 'participant' } }, 1));
    expect(up.steps[0]).toMatchObject({ kind: 'promote', joining: line(4) });
  });
});

describe('planReconfig: refusals', () => {
  const three = config([1, 2, 3]);
  it.each<[string, ReconfigChange, string]>([
    ['nothing', {}, 'nothing to change'],
    ['a bad line', { add: ['server.4=zk4'] }, 'is not a server line'],
    ['an id already there', { add: [line(2)] }, 'member 2 is already in the configuration'],
    ['an id added twice', { add: [line(4), line(4)] }, 'member 4 is added twice'],
    ['a port clash', { add: ['server.4=127.0.0.1:2881:3884:participant;127.0.0.1:2194'] }, 'members 1 and 4 would both use 127.0.0.1:2881'],
    [
      'a clash between two adds',
      { add: [line(4), 'server.5=127.0.0.1:2885:3885:participant;127.0.0.1:2194'] },
      'members 4 and 5 would both use 127.0.0.1:2194',
    ],
    ['an unknown id removed', { remove: ['7'] }, 'member 7 is not in the configuration'],
    ['not an id', { remove: ['two'] }, 'is not a member id'],
    ['removed twice', { remove: ['2', '2'] }, 'member 2 is removed twice'],
    ['removing every member', { remove: ['1', '2', '3'] }, 'leaves no voter'],
    ['demoting every voter', { roles: { '1': 'observer', '2': 'observer', '3': 'observer' } }, 'leaves no voter'],
    ['a role for an unknown member', { roles: { '9': 'observer' } }, 'member 9 is not in the configuration'],
    ['a role for an added member', { add: [line(4)], roles: { '4': 'observer' } }, 'give its role in its server line'],
    ['a role for a removed member', { remove: ['3'], roles: { '3': 'observer' } }, 'member 3 is removed'],
    ['the role it has', { roles: { '2': 'participant' } }, 'member 2 is already a voter'],
    ['an unknown role', { roles: { '2': 'leader' } }, 'must be participant or observer'],
    ['added and removed', { add: [line(4)], remove: ['4'] }, 'member 4 is not in the configuration'],
  ])('refuses %s', (_name, change, why) => {
    expect(refused(plan(three, change)).join('\n')).toContain(why);
  });

  it('refuses a configuration without a version (no dynamic reconfig)', () => {
    expect(refused(plan(line(1), { add: [line(2)] })).join('\n')).toContain('no version= line');
  });

  it('refuses 2 voters to 1: the one step would keep fewer than a majority of the voters before it', () => {
    expect(refused(plan(config([1, 2]), { remove: ['2'] }, 1)).join('\n')).toContain('would keep 1 of the 2 voters before it, fewer than a majority (2)');
  });
});

describe('planReconfig: risks needing a typed confirmation', () => {
  it('fewer than 3 voters left', () => {
    const p = ok(plan(config([1, 2, 3]), { roles: { '3': 'observer' } }, 1));
    expect(p.risks.map((r) => r.id)).toEqual(['fewer-than-3-voters']);
    expect(p.risks[0]!.sentence).toContain('2 voters, which tolerate no failure');
    expect(p.confirmationPhrase).toBe('leave 2 voters');
    expect(reconfigConfirmationMatches(p.confirmationPhrase, '  Leave 2  voters ')).toBe(true);
    expect(reconfigConfirmationMatches(p.confirmationPhrase, 'leave 3 voters')).toBe(false);
    expect(reconfigConfirmationMatches(p.confirmationPhrase, undefined)).toBe(false);
    expect(reconfigConfirmationMatches(null, undefined)).toBe(true);
  });

  it("removing the member Keeper's session is on", () => {
    const p = ok(plan(config([1, 2, 3, 4, 5]), { remove: ['5'] }, 1, 5));
    expect(p.risks.map((r) => r.id)).toEqual(['removes-keepers-member']);
    expect(p.confirmationPhrase).toBe('remove member 5');
  });

  it('both at once', () => {
    const p = ok(plan(config([1, 2, 3]), { remove: ['3'] }, 1, 3));
    expect(p.confirmationPhrase).toBe('leave 2 voters and remove member 3');
  });

  it('demoting the member Keeper is on is no risk: it keeps serving as an observer', () => {
    expect(ok(plan(config([1, 2, 3, 4, 5]), { roles: { '5': 'observer' } }, 1, 5)).risks).toEqual([]);
  });
});

describe('planReconfig: the invariant over every small change', () => {
  it('every step keeps a majority of the voters before it, adds come first and the leader goes last', () => {
    let plans = 0;
    for (let voters = 1; voters <= 5; voters++) {
      for (let observers = 0; observers <= 1; observers++) {
        const ids = Array.from({ length: voters }, (_, i) => i + 1);
        const obs = observers ? [voters + 1] : [];
        const all = [...ids, ...obs];
        // Every subset to remove, with and without two additions, the leader first or last.
        for (let mask = 0; mask < 1 << all.length; mask++) {
          const remove = all.filter((_, i) => mask & (1 << i)).map(String);
          for (const added of [0, 2]) {
            const add = Array.from({ length: added }, (_, i) => line(8 + i));
            for (const leader of new Set([1, voters])) {
              const result = plan(config(ids, obs), { add, remove }, leader);
              if (!result.ok) continue;
              plans++;
              let current = new Set(ids);
              let seenLeaving = false;
              for (const step of result.steps) {
                const next = new Set(current);
                if (step.kind === 'remove') next.delete(step.memberId);
                if (step.kind === 'add' && step.role === 'participant') next.add(step.memberId);
                const kept = [...current].filter((id) => next.has(id)).length;
                expect(kept).toBeGreaterThanOrEqual(quorumSize(current.size));
                if (step.kind === 'remove') seenLeaving = true;
                if (step.kind === 'add') expect(seenLeaving).toBe(false);
                if (step.memberId === leader) expect(step).toBe(result.steps.at(-1));
                expect(step.before.voters).toBe(current.size);
                current = next;
              }
              expect(result.after.voters).toBe(current.size);
              expect(result.after).toEqual(ensembleSize(result.membersAfter));
            }
          }
        }
      }
    }
    expect(plans).toBeGreaterThan(150);
  });
});
