// @vitest-environment jsdom
/**
 * While the console's session is read-only (a member that lost quorum serves it), the znode's
 * write controls and Edit ACL are disabled and say why, in the words every view uses; live
 * again, they work. The socket hooks are replaced by the states they would give.
 */
import '../../testSupport/dom';
import type { ReactNode } from 'react';
import { render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ZnodeStat } from '@keeper/shared';
import type { Freshness } from '../../app/freshness/freshness';
import type { ZnodeEntry } from './znodeEntries';

const PATH = '/app/config';
const STAT: ZnodeStat = {
  czxid: '0x200000010',
  mzxid: '0x200000010',
  pzxid: '0x200000010',
  ctime: Date.UTC(2026, 10, 27, 12),
  mtime: Date.UTC(2026, 10, 27, 12),
  version: 2,
  cversion: 0,
  aversion: 0,
  ephemeralOwner: '0x0',
  dataLength: 0,
  numChildren: 0,
};
const ENTRY = {
  path: PATH,
  node: { exists: true, stat: STAT, data: { text: '', encoding: 'text', size: 0, truncated: false } },
  at: 0,
  epoch: 1,
  last: null,
} as unknown as ZnodeEntry;
const READ_ONLY: Freshness = {
  live: false,
  asOf: Date.UTC(2026, 10, 27, 12, 5),
  reason: 'read-only: member 3 has lost quorum; data as of its last sync',
  readOnly: true,
};
const PAUSED = 'Writes are paused: read-only: member 3 has lost quorum; data as of its last sync.';

let freshness: Freshness = READ_ONLY;
vi.mock('../../app/freshness/useFreshness', () => ({ useFreshness: () => freshness }));
vi.mock('./znodeTopic', () => ({ useZnodeEntry: () => ENTRY }));
vi.mock('../../app/me', () => ({ useIsAdmin: () => true, useMayWriteAt: () => true }));

const { ZnodeActions } = await import('./ZnodeActions');
const { AclPanel } = await import('./acl/AclPanel');

beforeEach(() => {
  freshness = READ_ONLY;
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => Response.json({ path: PATH, acl: [{ scheme: 'sasl', id: 'keeper', perms: 'rwcda', permissions: 31 }], stat: STAT })),
  );
});
afterEach(() => vi.unstubAllGlobals());

function show(ui: ReactNode) {
  return render(<QueryClientProvider client={new QueryClient()}>{ui}</QueryClientProvider>);
}

describe('write controls on a read-only session', () => {
  it('are disabled with the reason, and the header says read-only', () => {
    show(<ZnodeActions ensemble="secured" path={PATH} />);
    for (const name of ['Edit data', 'Create child', 'Delete', 'Import']) {
      const control = screen.getByRole('button', { name });
      expect(control).toBeDisabled();
      expect(control).toHaveAttribute('title', PAUSED);
    }
    expect(screen.getByRole('note')).toHaveTextContent('read-only: writes paused');
    // Export only reads.
    expect(screen.getByRole('button', { name: 'Export subtree' })).toBeEnabled();
  });

  it('work again once the session is live', () => {
    freshness = { live: true };
    show(<ZnodeActions ensemble="secured" path={PATH} />);
    expect(screen.getByRole('button', { name: 'Edit data' })).toBeEnabled();
    expect(screen.queryByRole('note')).toBeNull();
  });

  it('include Edit ACL', async () => {
    const { unmount } = show(<AclPanel ensemble="secured" path={PATH} />);
    const edit = await screen.findByRole('button', { name: 'Edit ACL' });
    expect(edit).toBeDisabled();
    expect(edit).toHaveAttribute('title', PAUSED);
    unmount();
    freshness = { live: true };
    show(<AclPanel ensemble="secured" path={PATH} />);
    expect(await screen.findByRole('button', { name: 'Edit ACL' })).toBeEnabled();
  });
});
