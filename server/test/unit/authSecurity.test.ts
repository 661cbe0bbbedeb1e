/**
 * The pure parts of the security fixes: the sign-in limiter's keys and bounds, what an audit entry
 * may hold, audit rotation by size, the Host check, X-Forwarded-For behind a trusted proxy, and
 * malformed percent-encoding.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog, auditFileName } from '../../src/audit/auditLog.js';
import { AUDIT_FIELD_LIMITS, boundAuditInput } from '../../src/audit/auditBounds.js';
import { SignInLimiter } from '../../src/auth/signInLimiter.js';
import { allowedHostNames, checkHost, hostNameOf } from '../../src/auth/hosts.js';
import { clientAddress, type TrustFn } from '../../src/http/clientAddress.js';
import { decodablePath } from '../../src/http/requestHygiene.js';

const log = pino({ level: 'silent' });
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SignInLimiter', () => {
  it('keys failures per address and name, so one name over its budget does not block another', () => {
    let now = 1_000;
    const limiter = new SignInLimiter({ perName: 10, perAddress: 100, windowMs: 60_000 }, () => now);
    for (let i = 0; i < 10; i++) {
      expect(limiter.check('10.0.0.1', 'mallory').ok).toBe(true);
      limiter.fail('10.0.0.1', 'mallory');
    }
    const refused = limiter.check('10.0.0.1', 'mallory');
    expect(refused).toMatchObject({ ok: false, firstRefusal: true, retryAfterSeconds: 60 });
    // Reported once per window, whatever the number of refusals after it.
    expect(limiter.check('10.0.0.1', 'mallory')).toMatchObject({ ok: false, firstRefusal: false });
    // Another name from the same address, and the same name from another address, go on.
    expect(limiter.check('10.0.0.1', 'ann').ok).toBe(true);
    expect(limiter.check('10.0.0.2', 'mallory').ok).toBe(true);
    now += 60_000;
    expect(limiter.check('10.0.0.1', 'mallory').ok).toBe(true);
  });

  it('stops spraying many names from one address, and stays bounded in memory', () => {
    const limiter = new SignInLimiter({ perName: 10, perAddress: 30, windowMs: 60_000, maxKeys: 500 });
    for (let i = 0; i < 30; i++) limiter.fail('10.0.0.9', `user${i}`);
    expect(limiter.check('10.0.0.9', 'someone-new').ok).toBe(false);
    for (let i = 0; i < 5_000; i++) limiter.fail(`10.1.${i >> 8}.${i & 255}`, 'x'.repeat(15_000));
    expect(limiter.size).toBeLessThanOrEqual(500);
  });

  it('with replicas, takes the total counted across them: two limiters allow one more guess, not twice as many', async () => {
    const counts = new Map<string, number>();
    const shared = { add: async (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1).get(key)! };
    const replicas = [
      new SignInLimiter({ perName: 4, perAddress: 100, windowMs: 60_000 }),
      new SignInLimiter({ perName: 4, perAddress: 100, windowMs: 60_000 }),
    ];
    for (const r of replicas) r.share(shared);
    let allowed = 0;
    for (let i = 0; i < 12; i++) {
      const replica = replicas[i % 2]!;
      if (!replica.check('10.0.0.7', 'token').ok) continue;
      allowed++;
      await replica.fail('10.0.0.7', 'token');
    }
    expect(allowed).toBe(5);
    // The replicas' count unknown (the home ensemble away): each still counts its own.
    const alone = new SignInLimiter({ perName: 2, perAddress: 100, windowMs: 60_000 });
    alone.share({ add: async () => null });
    await alone.fail('10.0.0.8', 'x');
    await alone.fail('10.0.0.8', 'x');
    expect(alone.check('10.0.0.8', 'x').ok).toBe(false);
  });
});

describe('audit entries are bounded', () => {
  it('cuts a 15 KB path and a long failed sign-in name, and says which fields were cut', () => {
    const bounded = boundAuditInput({
      action: 'delete',
      outcome: 'refused',
      actor: { name: 'n'.repeat(5_000), role: null, via: 'cookie' },
      path: `/${'p'.repeat(15_000)}`,
      details: { big: 'd'.repeat(20_000) },
    });
    expect(bounded.path!.length).toBeLessThanOrEqual(AUDIT_FIELD_LIMITS.path + 1);
    expect(bounded.actor.name.length).toBeLessThanOrEqual(AUDIT_FIELD_LIMITS.actorName + 1);
    expect(bounded.truncated).toEqual(['actor.name', 'path', 'details']);
    expect(JSON.stringify(bounded).length).toBeLessThan(2_000);
    const small = boundAuditInput({ action: 'delete', outcome: 'ok', actor: { name: 'ann', role: 'admin', via: 'bearer' }, path: '/a' });
    expect(small.truncated).toBeUndefined();
  });

  it('rotates the file by size and keeps the configured number of files, listing across them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keeper-audit-rot-'));
    dirs.push(dir);
    const audit = await AuditLog.open(dir, log, { maxFileBytes: 64 * 1024, keepFiles: 2 });
    for (let i = 0; i < 300; i++)
      await audit.append({
        action: 'delete',
        outcome: 'refused',
        actor: { name: 'viewer-token', role: 'viewer', via: 'bearer' },
        path: `/${'x'.repeat(15_000)}${i}`,
      });
    const files = readdirSync(dir)
      .filter((f) => f.startsWith('audit'))
      .sort();
    expect(files).toEqual([auditFileName(1), auditFileName(2), auditFileName(0)].sort());
    const total = files.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
    // 300 x 15 KB of names would be 4.5 MB; three files of at most 64 KiB (plus one batch) remain.
    expect(total).toBeLessThan(3 * 70 * 1024);
    const newest = await audit.list({ limit: 150 });
    expect(newest[0]!.seq).toBe(300);
    // Strictly newest first, across the rotated files.
    expect(newest.every((e, i) => i === 0 || e.seq === newest[i - 1]!.seq - 1)).toBe(true);
    await audit.close();
    // Numbering goes on after a restart that finds a freshly rotated (empty) current file.
    const reopened = await AuditLog.open(dir, log, { maxFileBytes: 64 * 1024, keepFiles: 2 });
    expect((await reopened.append({ action: 'login', outcome: 'ok', actor: { name: 'ann', role: 'admin', via: 'cookie' } })).seq).toBe(301);
    await reopened.close();
  });
});

describe('Host check (DNS rebinding)', () => {
  it('allows the bound name, loopback names on loopback, IP literals and configured names only', () => {
    const allowed = allowedHostNames('127.0.0.1', ['https://keeper.example.com'], ['console.internal']);
    for (const host of ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080', 'keeper.example.com', 'console.internal:443', '10.1.2.3:8080'])
      expect(checkHost(host, allowed).ok, host).toBe(true);
    for (const host of ['evil.example:8080', 'localhost.evil.example', 'a b', '']) expect(checkHost(host, allowed).ok, host).toBe(false);
    expect(hostNameOf('Example.COM.:80')).toBe('example.com');
    // Bound to one name: loopback names are not this console's.
    expect(checkHost('localhost', allowedHostNames('keeper.lan', [], [])).ok).toBe(false);
  });
});

describe('client address behind a proxy', () => {
  const request = (remoteAddress: string, xff?: string) =>
    ({ socket: { remoteAddress }, headers: xff ? { 'x-forwarded-for': xff } : {} }) as unknown as IncomingMessage;
  const compiled = (value: unknown): TrustFn => express().set('trust proxy', value).get('trust proxy fn') as TrustFn;

  it('uses X-Forwarded-For only through trusted hops', () => {
    expect(clientAddress(request('127.0.0.1', '203.0.113.7'), compiled(false))).toBe('127.0.0.1');
    expect(clientAddress(request('127.0.0.1', '203.0.113.7'), compiled('loopback'))).toBe('203.0.113.7');
    // A client cannot pick its address by sending its own header through one trusted proxy.
    expect(clientAddress(request('127.0.0.1', '6.6.6.6, 203.0.113.7'), compiled(1))).toBe('203.0.113.7');
    expect(clientAddress(request('192.0.2.1', '203.0.113.7'), compiled('loopback'))).toBe('192.0.2.1');
  });
});

describe('malformed percent-encoding', () => {
  it('is told apart from good escapes, in the path only', () => {
    expect(decodablePath('/%zz')).toBe(false);
    expect(decodablePath('/api/ensembles/it/znodes/a%E0%A4%A')).toBe(false);
    expect(decodablePath('/api/ensembles/it/znodes/a%20b?x=%zz')).toBe(true);
  });
});

describe('settings', () => {
  it('reads trustProxy, allowedHosts and audit rotation from the environment', async () => {
    const { parseStartArgs } = await import('../../src/config/cli.js');
    const plan = parseStartArgs(['--zk', '127.0.0.1:2181'], {
      HOME: '/tmp',
      KEEPER_TRUST_PROXY: 'loopback, 10.0.0.0/8',
      KEEPER_ALLOWED_HOSTS: 'keeper.lan, zk-console.example.com',
      KEEPER_AUDIT_MAX_FILE_MIB: '2',
      KEEPER_AUDIT_KEEP_FILES: '3',
    });
    if (plan.kind !== 'run') throw new Error('expected a run plan');
    expect(plan.keeper.trustProxy).toEqual(['loopback', '10.0.0.0/8']);
    expect(plan.keeper.allowedHosts).toEqual(['keeper.lan', 'zk-console.example.com']);
    expect(plan.keeper.audit).toEqual({ maxFileBytes: 2 * 1024 * 1024, keepFiles: 3 });
    const hops = parseStartArgs(['--zk', '127.0.0.1:2181'], { HOME: '/tmp', KEEPER_TRUST_PROXY: '1' });
    expect(hops.kind === 'run' && hops.keeper.trustProxy).toBe(1);
    expect(() => parseStartArgs(['--zk', '127.0.0.1:2181'], { HOME: '/tmp', KEEPER_AUDIT_KEEP_FILES: 'many' })).toThrow(/KEEPER_AUDIT_KEEP_FILES/);
  });
});
