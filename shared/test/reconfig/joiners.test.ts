/**
 * How to start a member to add: its dynamic configuration (the current members plus itself), its
 * zoo.cfg with the ensemble's timings, the startCommand filled (and checked when the config is
 * read), the line suggested for the next member, and the workflow as a non-admin reads it.
 */
import { describe, expect, it } from 'vitest';
import {
  fillStartCommand,
  joinerStart,
  nextFreeId,
  parseAddLine,
  parseDynamicConfig,
  planReconfig,
  reconfigForReader,
  startCommandErrors,
  StartCommandError,
  suggestJoinerLine,
  type ReconfigWorkflow,
} from '../../src/index.js';

const sandbox = (offset = 0) =>
  parseDynamicConfig(
    [1, 2, 3].map((id) => `server.${id}=127.0.0.1:${2880 + id + offset}:${3880 + id + offset}:participant;127.0.0.1:${2190 + id + offset}`).join('\n') +
      '\nversion=100000000',
  ).members;
const member = (line: string) => {
  const parsed = parseAddLine(line);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.member;
};

describe('joinerStart', () => {
  it('lists the current members plus the joiner, and the zoo.cfg settings a learner needs', () => {
    const four = member('server.4=127.0.0.1:2884:3884:observer;127.0.0.1:2194');
    const start = joinerStart(sandbox(), four, { tickTime: 500, initLimit: 10, syncLimit: 5 }, 'npm run sandbox -- add {id} --role {role}');
    expect(start.dynamicConfig.split('\n')).toEqual([
      'server.1=127.0.0.1:2881:3881:participant;127.0.0.1:2191',
      'server.2=127.0.0.1:2882:3882:participant;127.0.0.1:2192',
      'server.3=127.0.0.1:2883:3883:participant;127.0.0.1:2193',
      'server.4=127.0.0.1:2884:3884:observer;127.0.0.1:2194',
    ]);
    expect(start.zooCfg).toContain('tickTime=500');
    expect(start.zooCfg).toContain('reconfigEnabled=true');
    expect(start.zooCfg).toContain('standaloneEnabled=false');
    expect(start.zooCfg).toContain('dynamicConfigFile=');
    expect(start.startCommand).toBe('npm run sandbox -- add 4 --role observer');
    expect(start).toMatchObject({ memberId: 4, role: 'observer', line: 'server.4=127.0.0.1:2884:3884:observer;127.0.0.1:2194' });
  });

  it("says ZooKeeper's defaults when the ensemble's timings are unknown", () => {
    const start = joinerStart(sandbox(), member('server.4=zk4:2888:3888:participant;2181'), { tickTime: null, initLimit: null, syncLimit: null }, null);
    expect(start.zooCfg).toMatch(/tickTime=2000\ninitLimit=10\nsyncLimit=5/);
    expect(start.startCommand).toBeNull();
  });
});

describe('startCommand', () => {
  it('fills every placeholder and keeps doubled braces as literal ones', () => {
    const m = member('server.7=zk7.internal:2888:3888:participant;10.0.0.7:2181');
    expect(fillStartCommand('ssh {host} start --id {id} -q {quorumPort} -e {electionPort} -c {clientHost}:{clientPort} {role} {{x}}', m)).toBe(
      'ssh zk7.internal start --id 7 -q 2888 -e 3888 -c 10.0.0.7:2181 participant {x}',
    );
  });

  it('refuses an unknown placeholder, an unmatched brace and an empty template, in words', () => {
    expect(startCommandErrors('ssh {host} start')).toEqual([]);
    expect(startCommandErrors('ssh {hots} start')).toEqual([expect.stringMatching(/unknown placeholder \{hots\}: use \{id\}, \{host\}/)]);
    expect(startCommandErrors('ssh {host start')).toEqual([expect.stringMatching(/unmatched brace/)]);
    expect(startCommandErrors('  ')).toEqual(['startCommand is empty']);
  });

  // A member that did not come through parseAddLine (the display parser is lax): the filled line is pasted into a shell.
  it.each([
    [
      'server.4=127.0.0.1:2888:3888:participant;$(id):2494',
      'ssh {clientHost} start-zk --id {id}',
      'the client host of member 4, "$(id)", is not a host name or address',
    ],
    ['server.4=-oProxyCommand=sh:2888:3888;2181', 'ssh {host} start-zk --id {id}', 'the host of member 4, "-oProxyCommand=sh", is not a host name or address'],
    ['server.4=`id`:2888:3888;2181', 'ssh {clientHost} start-zk', 'the client host of member 4, "`id`", is not a host name or address'],
    ['server.4=zk4:2888:3888', 'start-zk --port {clientPort}', 'member 4 has no client port from 1 to 65535'],
  ])('refuses to fill %s', (line, template, why) => {
    const [m] = parseDynamicConfig(line).members;
    expect(() => fillStartCommand(template, m!)).toThrow(StartCommandError);
    expect(() => fillStartCommand(template, m!)).toThrow(`startCommand was not filled: ${why}`);
    expect(() => joinerStart(sandbox(), m!, { tickTime: null, initLimit: null, syncLimit: null }, template)).toThrow(StartCommandError);
  });

  it('fills an IPv6 member with its address as parsed (no brackets)', () => {
    expect(fillStartCommand('ssh {host} start --client {clientHost}', member('server.7=[2001:db8::7]:2888:3888;[2001:db8::7]:2181'))).toBe(
      'ssh 2001:db8::7 start --client 2001:db8::7',
    );
  });
});

describe('suggestJoinerLine', () => {
  it("follows ports that step with the id on one host (the sandbox's layout), at any offset", () => {
    expect(suggestJoinerLine(sandbox(), 4)).toBe('server.4=127.0.0.1:2884:3884:participant;127.0.0.1:2194');
    expect(suggestJoinerLine(sandbox(12_240), 5, 'observer')).toBe('server.5=127.0.0.1:15125:16125:observer;127.0.0.1:14435');
  });

  it('follows host names that carry the id, with the same ports', () => {
    const members = parseDynamicConfig(['server.1=zk1.prod:2888:3888:participant;2181', 'server.2=zk2.prod:2888:3888:participant;2181'].join('\n')).members;
    expect(suggestJoinerLine(members, 3)).toBe('server.3=zk3.prod:2888:3888:participant;2181');
  });

  it('otherwise copies the highest member for the operator to edit, which the plan then refuses until edited', () => {
    const members = parseDynamicConfig(['server.1=alpha:2888:3888:participant;alpha:2181', 'server.2=beta:2888:3888:participant;beta:2181'].join('\n')).members;
    const line = suggestJoinerLine(members, 3);
    expect(line).toBe('server.3=beta:2888:3888:participant;beta:2181');
    const text = `${members.map((m) => `server.${m.id}=${m.value}`).join('\n')}\nversion=1`;
    const plan = planReconfig({ configText: text, change: { add: [line] }, leaderId: null, connectedMemberId: null });
    expect(plan.ok ? [] : plan.refusals).toContain('members 2 and 3 would both use beta:2888');
  });

  it('takes the id after the highest in use, skipping ids already being added', () => {
    expect(nextFreeId(sandbox())).toBe(4);
    expect(nextFreeId(sandbox(), [4])).toBe(5);
  });

  it('never offers the id of a removed member: after 1 and 3 left a 5-member ensemble, the learners started next are 6 and 7 (issue 34, item 14)', () => {
    const left = [{ id: 2 }, { id: 4 }, { id: 5 }];
    expect(nextFreeId(left)).toBe(6);
    expect(nextFreeId(left, [6])).toBe(7);
    expect(nextFreeId([])).toBe(1);
  });
});

describe('reconfigForReader', () => {
  it('withholds a filled startCommand from anyone but an admin, saying one exists', () => {
    const joiner = joinerStart(
      sandbox(),
      member('server.4=127.0.0.1:2884:3884:participant;127.0.0.1:2194'),
      { tickTime: 2000, initLimit: 10, syncLimit: 5 },
      'ssh {host} TOKEN=s3cret start',
    );
    const wf = { joiners: [joiner] } as ReconfigWorkflow;
    expect(reconfigForReader(wf, true).joiners[0]!.startCommand).toBe('ssh 127.0.0.1 TOKEN=s3cret start');
    const seen = reconfigForReader(wf, false);
    expect(JSON.stringify(seen)).not.toContain('s3cret');
    expect(seen.joiners[0]).toMatchObject({ startCommand: null, startCommandWithheld: true, dynamicConfig: joiner.dynamicConfig });
  });
});
