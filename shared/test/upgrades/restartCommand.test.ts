/**
 * The restartCommand template: placeholders filled shell-quoted, checked by running the result
 * through a real POSIX shell (printf prints each argument as it arrived).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fillRestartCommand, restartCommandSchema, restartTemplateErrors, RestartCommandError, shellQuote } from '../../src/index.js';

const target = { memberId: 2, host: 'zk2.example.com', clientPort: 2181, adminPort: 8080 };
const sh = (line: string) => execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8' });

describe('fillRestartCommand', () => {
  it('fills the placeholders; plain words stay readable', () => {
    expect(fillRestartCommand('ssh {host} sudo systemctl restart zookeeper', target)).toBe('ssh zk2.example.com sudo systemctl restart zookeeper');
    expect(fillRestartCommand('kubectl delete pod zk-{id}', target)).toBe('kubectl delete pod zk-2');
    expect(fillRestartCommand('restart {host}:{clientPort} admin={adminPort} {{literal}}', target)).toBe('restart zk2.example.com:2181 admin=8080 {literal}');
  });

  it.each(['zk 2', "zk'2", 'zk"2', '$(touch /tmp/keeper-upgrade-pwned)', '`id`', 'a\'b"c $(x) `y` ; rm -rf / \\ \n', '', "'"])(
    'a nasty host %j reaches the command as one literal argument',
    (host) => {
      const line = fillRestartCommand("printf '[%s]' {host}", { ...target, host });
      expect(sh(line)).toBe(`[${host}]`);
    },
  );

  it('quotes as shlex.quote does', () => {
    expect(shellQuote('zk1')).toBe('zk1');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe(`'it'"'"'s'`);
    expect(shellQuote('')).toBe("''");
  });

  it('rejects an unknown placeholder with a clear error', () => {
    expect(() => fillRestartCommand('ssh {hostname} restart', target)).toThrow(RestartCommandError);
    expect(() => fillRestartCommand('ssh {hostname} restart', target)).toThrow(
      'restartCommand has an unknown placeholder {hostname}: use {id}, {host}, {clientPort}, {adminPort} (write {{ and }} for literal braces)',
    );
    expect(restartTemplateErrors('echo ${HOME}')).toEqual([
      'restartCommand has an unknown placeholder {HOME}: use {id}, {host}, {clientPort}, {adminPort} (write {{ and }} for literal braces)',
    ]);
    expect(restartTemplateErrors('echo {host')).toEqual(['restartCommand has an unmatched brace: write {{ and }} for literal braces']);
  });

  it('says when the member has no value for a placeholder', () => {
    expect(() => fillRestartCommand('kubectl delete pod zk-{id}', { ...target, memberId: null })).toThrow(
      'restartCommand uses {id}, but zk2.example.com:2181 has none: the configuration gives it no server id',
    );
    expect(() => fillRestartCommand('curl {host}:{adminPort}', { ...target, adminPort: null })).toThrow('it has no AdminServer port');
  });

  it('the config schema checks the template when the config is read', () => {
    expect(restartCommandSchema.parse('  ssh {host} restart ')).toBe('ssh {host} restart');
    const bad = restartCommandSchema.safeParse('ssh {server} restart');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain('unknown placeholder {server}');
    expect(restartCommandSchema.safeParse('   ').success).toBe(false);
  });
});
