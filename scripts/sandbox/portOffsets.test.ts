/** The project's own port layouts never meet each other nor the ephemeral range (see portOffsets.ts). */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allPorts, MAX_SIZE, memberPorts } from './ports.js';
import { EPHEMERAL_PORT_FLOOR, KEEPER_PORTS, OIDC_PROVIDER_PORTS, PORT_OFFSETS } from './portOffsets.js';

/** Every port a layout at `offset` may take, whatever its size. */
function layoutPorts(offset: number): number[] {
  return Array.from({ length: MAX_SIZE }, (_, i) => allPorts(memberPorts(i + 1, offset))).flat();
}

describe('PORT_OFFSETS', () => {
  const owners = new Map<number, string>();
  for (const [name, offset] of Object.entries(PORT_OFFSETS))
    for (const port of layoutPorts(offset)) owners.set(port, owners.has(port) ? `${owners.get(port)} and ${name}` : name);
  for (const [name, port] of Object.entries(KEEPER_PORTS)) owners.set(port, owners.has(port) ? `${owners.get(port)} and keeper.${name}` : `keeper.${name}`);
  for (const [name, port] of Object.entries(OIDC_PROVIDER_PORTS)) owners.set(port, owners.has(port) ? `${owners.get(port)} and oidc.${name}` : `oidc.${name}`);

  it('gives every port to one user only', () => {
    const shared = [...owners].filter(([, who]) => who.includes(' and '));
    expect(shared).toEqual([]);
  });

  it('keeps every port below the ephemeral range, where outgoing connections may hold it', () => {
    const inRange = [...owners].filter(([port]) => port >= EPHEMERAL_PORT_FLOOR);
    expect(inRange).toEqual([]);
  });

  it('would notice a collision', () => {
    // 1000 apart: one layout's peer ports are the other's election ports.
    const a = new Set(layoutPorts(PORT_OFFSETS.gatewayTest));
    expect(layoutPorts(PORT_OFFSETS.gatewayTest + 1000).some((p) => a.has(p))).toBe(true);
  });
});

describe('the files that use them', () => {
  // Integration files run two at a time and e2e specs beside them: a layout or port two files name is a
  // collision waiting for the order that starts them together (it happened: the sign-in and OIDC files).
  const files = execFileSync('git', ['ls-files', '*.ts'], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !/(^|\/)portOffsets(\.test)?\.ts$/.test(f));
  const users = new Map<string, Set<string>>();
  for (const file of files)
    for (const [, table, key] of readFileSync(file, 'utf8').matchAll(/\b(PORT_OFFSETS|KEEPER_PORTS|OIDC_PROVIDER_PORTS|KDC_PORTS)\.(\w+)/g))
      users.set(`${table}.${key}`, (users.get(`${table}.${key}`) ?? new Set()).add(file));

  it('gives every layout and port to one file only', () => {
    const shared = [...users].filter(([, who]) => who.size > 1).map(([name, who]) => `${name}: ${[...who].join(', ')}`);
    expect(shared).toEqual([]);
  });

  it('reads the files (the sign-in file names its own layout)', () => {
    expect([...(users.get('PORT_OFFSETS.authTests') ?? [])]).toEqual(['server/test/signIns.integration.test.ts']);
  });
});
