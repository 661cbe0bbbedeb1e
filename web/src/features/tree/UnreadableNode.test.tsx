// @vitest-environment jsdom
/**
 * A node the console may not read, as the NO_AUTH explanation says it: who ZooKeeper sees Keeper
 * as (whoAmI) against whom the ACL grants read, when ZooKeeper reveals the ACL and when it does
 * not; and how to present a sasl or x509 identity. The stat and ACL answer through fetch as the
 * HTTP API answers them.
 */
import '../../testSupport/dom';
import { render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AclEntryView, ConsoleIdentityEntry, ZnodeStat } from '@keeper/shared';
import { UnreadableNode } from './UnreadableNode';

const PATH = '/billing/ledger';
const STAT: ZnodeStat = {
  czxid: '0x200000010',
  mzxid: '0x200000010',
  pzxid: '0x200000010',
  ctime: Date.UTC(2026, 10, 27, 12),
  mtime: Date.UTC(2026, 10, 27, 12),
  version: 0,
  cversion: 0,
  aversion: 0,
  ephemeralOwner: '0x0',
  dataLength: 12,
  numChildren: 0,
};
const KEEPER: ConsoleIdentityEntry[] = [
  { scheme: 'ip', id: '127.0.0.1' },
  { scheme: 'sasl', id: 'keeper' },
];
const BILLING_ONLY: AclEntryView[] = [
  { scheme: 'sasl', id: 'billing', perms: 'rwcda', permissions: 31 },
  { scheme: 'sasl', id: 'keeper', perms: 'a', permissions: 16 },
];

let aclAnswer: () => Response;

beforeEach(() => {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => (url.includes('/acl') ? aclAnswer() : Response.json({ path: PATH, stat: STAT }))),
  );
});
afterEach(() => vi.unstubAllGlobals());

function show(identity: ConsoleIdentityEntry[] | null) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>
        <UnreadableNode ensemble="secured" path={PATH} consoleSessionId={null} identity={identity} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('the NO_AUTH explanation', () => {
  it('puts who ZooKeeper sees Keeper as beside whom the ACL grants read, and how to become one of them', async () => {
    aclAnswer = () => Response.json({ path: PATH, acl: BILLING_ONLY, stat: STAT });
    show(KEEPER);
    const callout = screen.getByRole('status', { name: 'No read access' });
    expect(
      await within(callout).findByText('ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1; this node’s ACL grants read only to sasl:billing.'),
    ).toBeInTheDocument();
    const need = screen.getByRole('region', { name: 'Access needed' });
    expect(within(need).getByRole('listitem')).toHaveTextContent(/^sasl:billingauthenticate Keeper as billing: "sasl" with that DIGEST-MD5 username/);
  });

  it('says what is known when ZooKeeper hides the ACL', async () => {
    aclAnswer = () => Response.json({ error: { code: 'NO_AUTH', message: `NO_AUTH (-102) at ${PATH}` } }, { status: 403 });
    show(KEEPER);
    expect(await screen.findByText('ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1, and this node’s ACL grants it no read.')).toBeInTheDocument();
    expect(screen.getByText(/ZooKeeper does not reveal this ACL either/)).toBeInTheDocument();
  });

  it('keeps to what it knows before whoAmI has answered', async () => {
    aclAnswer = () => Response.json({ path: PATH, acl: BILLING_ONLY, stat: STAT });
    show(null);
    expect(await screen.findByText('Reading needs one of these ACL entries (scheme:id):')).toBeInTheDocument();
    expect(screen.queryByText(/ZooKeeper sees Keeper as/)).toBeNull();
  });
});
