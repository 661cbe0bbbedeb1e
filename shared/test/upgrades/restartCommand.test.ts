/**
 * The restartCommand template in its three shapes (argv, words, an explicit shell line), checked
 * by running what it becomes: printf prints each argument as it arrived. The attacks of issue 25
 * item 6 are kept here: placeholders inside quotes, and a host that is an ssh option.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fillRestartCommand, isHostNameOrAddress, restartCommandErrors, restartCommandSchema, RestartCommandError, shellQuote } from '../../src/index.js';

const target = { memberId: 2, host: 'zk2.example.com', clientPort: 2181, adminPort: 8080 };
const run = (argv: readonly string[]) => execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });

describe('an argv array: no shell', () => {
  it('fills each word; a word full of shell syntax reaches the program as it is', () => {
    const filled = fillRestartCommand(['printf', '[%s]', '{host}:{clientPort}', 'zk-{id}', '$(touch /tmp/keeper-pwned); `id` && x', '{{literal}}'], target);
    expect(filled).toMatchObject({
      shell: false,
      argv: ['printf', '[%s]', 'zk2.example.com:2181', 'zk-2', '$(touch /tmp/keeper-pwned); `id` && x', '{literal}'],
    });
    expect(run(filled.argv)).toBe('[zk2.example.com:2181][zk-2][$(touch /tmp/keeper-pwned); `id` && x][{literal}]');
    // What an admin sees is the same command, quoted for pasting into a shell.
    expect(filled.display).toBe("printf '[%s]' zk2.example.com:2181 zk-2 '$(touch /tmp/keeper-pwned); `id` && x' '{literal}'");
  });

  it('refuses a placeholder as the program and an empty program', () => {
    expect(restartCommandErrors(['{host}', 'restart'])).toEqual(['restartCommand: the program itself (the first word) cannot hold a placeholder']);
    expect(restartCommandErrors([''])).toEqual(['restartCommand names no program: its first word is empty']);
    expect(restartCommandErrors([])).toEqual(['restartCommand names no program: its first word is empty']);
  });
});

describe('a string: words split on spaces, no shell', () => {
  it('runs the README example as words', () => {
    expect(fillRestartCommand('ssh {host} sudo systemctl restart zookeeper', target)).toMatchObject({
      shell: false,
      argv: ['ssh', 'zk2.example.com', 'sudo', 'systemctl', 'restart', 'zookeeper'],
      display: 'ssh zk2.example.com sudo systemctl restart zookeeper',
    });
    expect(fillRestartCommand('  kubectl   delete pod zk-{id} ', target).argv).toEqual(['kubectl', 'delete', 'pod', 'zk-2']);
  });

  it.each(['echo {id} >> /tmp/log', 'ssh {host} "restart"', 'a && b', "ssh {host} 'x'", 'echo $HOME', 'a; b', 'a | b', 'a `b`'])(
    'refuses shell syntax in %j, saying how to write it',
    (line) => {
      const [error] = restartCommandErrors(line);
      expect(error).toMatch(/^restartCommand runs without a shell, so ".+" would reach the program as part of a word: write it as an array of words/);
      expect(error).toContain('{"shell": true, "line": "…"}');
    },
  );
});

describe('a shell line, asked for with "shell": true', () => {
  const shell = (line: string) => ({ shell: true as const, line });

  it('fills unquoted placeholders shell-quoted and runs in /bin/sh', () => {
    const filled = fillRestartCommand(shell("printf '[%s]' {host} && printf '<%s>' zk-{id}"), target);
    expect(filled).toMatchObject({ shell: true, argv: ['/bin/sh', '-c', "printf '[%s]' zk2.example.com && printf '<%s>' zk-2"] });
    expect(run(filled.argv)).toBe('[zk2.example.com]<zk-2>');
  });

  it.each([
    ['echo "{host}"', '{host} inside double quotes'],
    ["echo '{host}'", '{host} inside single quotes'],
    ['echo "$(ping {host})"', '{host} inside double quotes'],
    ['echo `ping {host}`', '{host} inside backticks'],
    ["ssh x 'restart {id}; true'", '{id} inside single quotes'],
    ['echo "a\\"{clientPort}"', '{clientPort} inside double quotes'],
  ])('refuses %j: %s', (line, where) => {
    expect(restartCommandErrors(shell(line))).toEqual([
      `restartCommand puts ${where}: Keeper quotes each value itself, which is safe only outside quotes; write the placeholder unquoted`,
    ]);
  });

  it('accepts quotes that hold no placeholder, escaped quotes and literal braces', () => {
    expect(restartCommandErrors(shell(`echo "restarting" {host} && echo 'done' \\"{id}\\" '{{x}}'`))).toEqual([]);
  });
});

describe('the values', () => {
  it.each(['-oProxyCommand=touch /tmp/keeper-pwned', '-x', 'zk 2', "zk'2", 'zk"2', '$(id)', '`id`', 'a;b', '', 'zk2\n', 'a..b', '[::1'])(
    'a member host %j is refused before anything runs, in every shape',
    (host) => {
      expect(isHostNameOrAddress(host)).toBe(false);
      for (const config of ['ssh {host} restart', ['ssh', '{host}', 'restart'], { shell: true as const, line: 'ssh {host} restart' }]) {
        expect(() => fillRestartCommand(config, { ...target, host })).toThrow(RestartCommandError);
        expect(() => fillRestartCommand(config, { ...target, host })).toThrow('is not a host name or address');
      }
    },
  );

  it.each(['zk2', 'zk-2.prod.example.com', '10.0.0.12', '::1', '[fe80::1]', '2001:db8::7', 'ZK_2.internal'])('accepts the host %j', (host) => {
    expect(isHostNameOrAddress(host)).toBe(true);
    expect(fillRestartCommand(['ssh', '{host}'], { ...target, host }).argv).toEqual(['ssh', host]);
  });

  it('ports and ids must be numbers; a member without one says so', () => {
    expect(() => fillRestartCommand(['x', '{clientPort}'], { ...target, clientPort: 70_000 })).toThrow('is not a port number');
    expect(() => fillRestartCommand(['x', '{adminPort}'], { ...target, adminPort: -1 })).toThrow('is not a port number');
    expect(() => fillRestartCommand(['x', '{id}'], { ...target, memberId: 1.5 })).toThrow('is not a number');
    expect(() => fillRestartCommand('kubectl delete pod zk-{id}', { ...target, memberId: null })).toThrow(
      'restartCommand uses {id}, but "zk2.example.com":2181 has none: the configuration gives it no server id',
    );
    expect(() => fillRestartCommand('curl {host}:{adminPort}', { ...target, adminPort: null })).toThrow('it has no AdminServer port');
  });
});

describe('templates', () => {
  it('quotes as shlex.quote does', () => {
    expect(shellQuote('zk1')).toBe('zk1');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe(`'it'"'"'s'`);
    expect(shellQuote('')).toBe("''");
  });

  it('rejects an unknown placeholder and a stray brace in every shape', () => {
    const unknown = 'restartCommand has an unknown placeholder {hostname}: use {id}, {host}, {clientPort}, {adminPort} (write {{ and }} for literal braces)';
    expect(() => fillRestartCommand('ssh {hostname} restart', target)).toThrow(unknown);
    expect(restartCommandErrors(['ssh', '{hostname}'])).toEqual([unknown]);
    expect(restartCommandErrors({ shell: true, line: 'echo {host' })).toEqual(['restartCommand has an unmatched brace: write {{ and }} for literal braces']);
  });

  it('the config schema checks each shape when the config is read', () => {
    expect(restartCommandSchema.parse('  ssh {host} restart ')).toBe('ssh {host} restart');
    expect(restartCommandSchema.parse(['ssh', '{host}'])).toEqual(['ssh', '{host}']);
    expect(restartCommandSchema.parse({ shell: true, line: 'a && b {id}' })).toEqual({ shell: true, line: 'a && b {id}' });
    const bad = restartCommandSchema.safeParse('ssh {server} restart');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain('unknown placeholder {server}');
    expect(restartCommandSchema.safeParse('   ').success).toBe(false);
    expect(restartCommandSchema.safeParse({ shell: false, line: 'x' }).success).toBe(false);
    expect(restartCommandSchema.safeParse({ shell: true, line: 'echo "{host}"' }).success).toBe(false);
    expect(restartCommandSchema.safeParse('echo {id} >> /tmp/log').success).toBe(false);
  });
});
