// @vitest-environment jsdom
/**
 * The Locks list as an operator reads it, from the fixtures analyzeLock builds: worst first with
 * each lock's status word and counts, the leak check, herds, what is watched and the last scan;
 * Enter on a row opens its detail; the admin tools (scan, clean with a dry run first) and their
 * absence for a viewer; the "as of" note once the data is not live.
 */
import '../../testSupport/dom';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Freshness } from '../../app/freshness/freshness';
import { BIG, JOB, locksResponse, NOW, PERSIST } from './fixtures';
import { LocksList } from './LocksList';
import type { LocksEntry } from './locksTopic';
import { withDialogs } from '../../testSupport/dialogs';

withDialogs();

const LIVE: Freshness = { live: true };
const ENTRY: LocksEntry = { kind: 'locks', locks: locksResponse(), epoch: 1 };

let requests: { url: string; body: unknown }[] = [];
let answer: (url: string, body: unknown) => Response;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW + 1_000);
  requests = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const body: unknown = init?.body ? JSON.parse(String(init.body)) : undefined;
      requests.push({ url, body });
      return answer(url, body);
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function Where() {
  return <p data-testid="where">{useLocation().pathname}</p>;
}

function show({ admin = false, freshness = LIVE, entry = ENTRY }: { admin?: boolean; freshness?: Freshness; entry?: LocksEntry | null } = {}) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter initialEntries={['/ensembles/default/locks']}>
        <Routes>
          <Route path="/ensembles/:name/locks" element={<LocksList ensemble="default" entry={entry ?? undefined} freshness={freshness} admin={admin} />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

function rows(): HTMLTableRowElement[] {
  const table = screen.getByRole('table', { name: 'Locks' });
  return within(within(table).getAllByRole('rowgroup')[1]!).getAllByRole<HTMLTableRowElement>('row');
}

describe('the Locks list', () => {
  it('lists every lock worst first, with its worst status word, counts, oldest hold, flags and recipe', () => {
    show();
    const shown = rows().map((r) =>
      within(r)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    );
    expect(shown.map((cells) => cells[0])).toEqual([JOB, PERSIST, BIG]);
    const [job, persist, big] = shown;
    expect(job!.slice(1, 6)).toEqual(['leaked', '1', '2', '5 min', 'long timeout']);
    expect(persist![1]).toBe('persistent');
    // 100,000 contenders: the counts cover them all though only the first few are listed.
    expect(big!.slice(1, 4)).toEqual(['waiting', '1', '99,999']);
    expect(job![6]).toMatch(/^kazoo Lock/);
    expect(within(rows()[0]!).getByText('long timeout')).toHaveAttribute('title', expect.stringMatching(/15 min/));
    expect(screen.getByText(/3 locks · 1 with a leaked node · 1 herd/)).toBeInTheDocument();
  });

  it('says how far the leak check goes, the herds with their fix, what is watched and the last scan', () => {
    show();
    expect(screen.getByText('leak check ready').parentElement).toHaveTextContent(locksResponse().leakCheck.sentence);
    expect(screen.getByText(/20 sessions watch \/queue\/holder: each change wakes all of them/)).toBeInTheDocument();
    expect(screen.getByText(/tracking 3 of 1,000 lock directories/)).toHaveTextContent('Roots /app/locks');
    const scan = screen.getByText('scan done').parentElement!;
    expect(scan).toHaveTextContent(/Last scan of \/, 21 s ago: 101,234 znodes listed, 3 locks found, 1,250 ZooKeeper requests/);
    expect(within(scan).getByText('1 place not looked into')).toBeInTheDocument();
  });

  it('says which replica runs the scan and who took it over, with replicas', () => {
    const sentence =
      "replica b:8080 took over at 14:02:31 UTC after replica a:8080's session ended; its partial walk (120 znodes listed, 3 found) is set aside and the scan starts again from /";
    const base = locksResponse();
    const lastScan = {
      ...base.lastScan!,
      state: 'running' as const,
      runBy: { replica: 'bbb', name: 'b:8080', since: NOW },
      updatedAt: NOW - 5_000,
      handovers: [{ at: NOW, sentence }],
    };
    show({ entry: { ...ENTRY, locks: { ...base, lastScan } } });
    const scan = screen.getByText('scan running').parentElement!;
    expect(scan).toHaveTextContent('running on replica b:8080');
    expect(scan).toHaveTextContent(sentence);
    // Its progress 6 s old: said, not shown as live.
    expect(scan).toHaveTextContent('progress as of 6 s ago: its replica has stored none since');
  });

  it('lets an admin cancel a scan another replica runs, and says what the server answered (not that it stopped, until it has)', async () => {
    const user = userEvent.setup();
    const base = locksResponse();
    const lastScan = { ...base.lastScan!, jobId: 'scan-7', state: 'running' as const, runBy: { replica: 'aaa', name: 'a:8080', since: NOW }, updatedAt: NOW };
    const message = "cancel requested, not yet confirmed: replica a:8080 had not stored the scan stopped within 5 s (the scan's record will say when it does)";
    answer = () =>
      Response.json(
        {
          outcome: 'requested',
          message,
          scan: {
            id: 'scan-7',
            ensemble: 'default',
            path: '/',
            state: 'running',
            startedBy: 'ops',
            startedAt: NOW,
            finishedAt: null,
            updatedAt: NOW,
            visited: 1,
            found: 0,
            foundPaths: [],
            requests: 1,
            skipped: [],
            skippedTotal: 0,
            error: null,
            runBy: lastScan.runBy,
            handovers: [],
          },
        },
        { status: 202 },
      );
    show({ admin: true, entry: { ...ENTRY, locks: { ...base, lastScan } } });
    await user.click(screen.getByRole('button', { name: 'Cancel scan' }));
    expect(await screen.findByText(message, { exact: false })).toHaveAttribute('role', 'status');
    expect(requests.at(-1)).toEqual({ url: '/api/ensembles/default/locks/scan/cancel', body: { scanId: 'scan-7' } });
    expect(screen.getByText('scan running')).toBeInTheDocument();
  });

  it('shows a cancel asked on another replica as not yet confirmed, then as done once the record says cancelled; no button for a viewer', () => {
    const base = locksResponse();
    const running = {
      ...base.lastScan!,
      state: 'running' as const,
      runBy: { replica: 'aaa', name: 'a:8080', since: NOW },
      updatedAt: NOW,
      cancelRequest: { by: 'ops', replica: 'b:8080', at: NOW },
    };
    show({ entry: { ...ENTRY, locks: { ...base, lastScan: running } } });
    const line = screen.getByText('scan running').parentElement!;
    expect(line).toHaveTextContent('cancel requested by ops on replica b:8080');
    expect(line).toHaveTextContent('not yet confirmed by the replica running it');
    expect(screen.queryByRole('button', { name: 'Cancel scan' })).toBeNull();
  });

  it('says a scan was cancelled at whose request', () => {
    const base = locksResponse();
    const lastScan = {
      ...base.lastScan!,
      state: 'cancelled' as const,
      finishedAt: NOW,
      runBy: { replica: 'aaa', name: 'a:8080', since: NOW },
      cancelRequest: { by: 'ops', replica: 'b:8080', at: NOW },
    };
    show({ admin: true, entry: { ...ENTRY, locks: { ...base, lastScan } } });
    expect(screen.getByText('scan cancelled').parentElement!).toHaveTextContent('cancelled at the request of ops on replica b:8080');
    expect(screen.queryByRole('button', { name: 'Cancel scan' })).toBeNull();
  });

  it('filters by path, recipe, status or flag, keeping the order', async () => {
    const user = userEvent.setup();
    show();
    await user.type(screen.getByRole('searchbox', { name: 'Filter locks' }), 'app');
    expect(rows().map((r) => r.cells[0]!.textContent)).toEqual([JOB, PERSIST]);
    await user.clear(screen.getByRole('searchbox', { name: 'Filter locks' }));
    await user.type(screen.getByRole('searchbox', { name: 'Filter locks' }), 'persistent');
    expect(rows().map((r) => r.cells[0]!.textContent)).toEqual([PERSIST]);
    expect(screen.getByText('showing 1 of 3')).toBeInTheDocument();
  });

  it('opens a lock with Enter on its row, at the lock’s own URL', async () => {
    const user = userEvent.setup();
    show();
    rows()[1]!.focus();
    await user.keyboard('{Enter}');
    expect(screen.getByTestId('where')).toHaveTextContent('/ensembles/default/locks/app/locks/persist');
  });

  it('shows a viewer no write controls', () => {
    show({ admin: false });
    expect(screen.queryByRole('button', { name: /Scan for locks/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /Clean leaked/ })).toBeNull();
    expect(screen.queryAllByRole('button')).toEqual([]);
  });

  it('starts a scan of the path an admin gives', async () => {
    const user = userEvent.setup();
    answer = () =>
      Response.json(
        {
          job: {
            id: 'job-9',
            kind: 'lockScan',
            ensemble: 'default',
            path: '/app',
            state: 'running',
            done: 0,
            total: 0,
            current: null,
            startedBy: 'ops',
            startedAt: NOW,
            cancelRequested: false,
          },
        },
        { status: 202 },
      );
    show({ admin: true });
    await user.click(screen.getByRole('button', { name: 'Scan for locks…' }));
    const dialog = screen.getByRole('dialog', { name: 'Scan for locks' });
    const input = within(dialog).getByRole('textbox');
    expect(input).toHaveValue('/');
    await user.clear(input);
    await user.type(input, '/app');
    await user.click(within(dialog).getByRole('button', { name: 'Start the scan' }));
    expect(requests).toEqual([{ url: '/api/ensembles/default/locks/scan', body: { path: '/app' } }]);
    // Started: the dialog gives way to the jobs dock, which shows progress and Cancel.
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('cleans leaked contenders only after a dry run lists them, deleting only those (pinned), then says what was deleted and left alone', async () => {
    const user = userEvent.setup();
    const leaked = `${JOB}/${locksResponse().locks[0]!.contenders[1]!.name}`;
    const candidates = [
      { path: leaked, lock: JOB, owner: '0xb', version: 0 },
      { path: '/other/x-0000000001', lock: '/other', owner: '0xe', version: 0 },
    ];
    answer = (_url, body) => {
      const dryRun = (body as { dryRun: boolean }).dryRun;
      return Response.json({
        path: '/',
        dryRun,
        candidates,
        candidatesTotal: 2,
        deleted: dryRun ? [] : [leaked],
        skipped: dryRun ? [] : [{ path: '/other/x-0000000001', reason: 'now the holder' }],
        leakedHolders: [],
        leakCheck: { ready: true, sentence: 'Two gatherings 12 s apart.' },
      });
    };
    show({ admin: true });
    await user.click(screen.getByRole('button', { name: 'Clean leaked…' }));
    const dialog = screen.getByRole('dialog', { name: 'Clean leaked contenders' });
    await user.click(within(dialog).getByRole('button', { name: 'Dry run' }));
    expect(requests.map((r) => r.body)).toEqual([{ path: '/', dryRun: true }]);
    const list = await within(dialog).findByRole('list', { name: 'Leaked contenders' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([leaked, '/other/x-0000000001']);
    await user.click(within(dialog).getByRole('button', { name: 'Delete 2 leaked nodes' }));
    expect(requests.map((r) => r.body)).toEqual([
      { path: '/', dryRun: true },
      { path: '/', dryRun: false, pinned: candidates },
    ]);
    expect(await within(dialog).findByText('1 node deleted, 1 left alone')).toBeInTheDocument();
    expect(within(within(dialog).getByRole('list', { name: 'Left alone' })).getByRole('listitem')).toHaveTextContent('/other/x-0000000001 — now the holder');
  });

  it('never says "nothing to clean" beside a leaked node that holds: the dry run names it and where to delete it', async () => {
    const user = userEvent.setup();
    const holder = { path: `${JOB}/_c_x-lock-0000000007`, lock: JOB, owner: '0xa', version: 0 };
    answer = () =>
      Response.json({
        path: '/',
        dryRun: true,
        candidates: [],
        candidatesTotal: 0,
        deleted: [],
        skipped: [],
        leakedHolders: [holder],
        leakCheck: { ready: true, sentence: 'Two gatherings 12 s apart.' },
      });
    show({ admin: true });
    await user.click(screen.getByRole('button', { name: 'Clean leaked…' }));
    const dialog = screen.getByRole('dialog', { name: 'Clean leaked contenders' });
    await user.click(within(dialog).getByRole('button', { name: 'Dry run' }));
    const list = await within(dialog).findByRole('list', { name: 'Leaked holders' });
    expect(within(dialog).queryByText(/nothing to clean/)).toBeNull();
    expect(within(dialog).getByText('A leaked node holds its lock')).toBeInTheDocument();
    expect(within(list).getByRole('link', { name: holder.path })).toHaveAttribute('href', `/ensembles/default/locks${JOB}`);
    expect(within(dialog).queryByRole('button', { name: /^Delete/ })).toBeNull();
  });

  it('says "as of" with the last confirmed time when the console session is unconfirmed, and greys the status words', () => {
    const at = NOW - 30_000;
    show({ freshness: { live: false, asOf: at, label: 'unconfirmed since', reason: 'ZooKeeper member h:1 is not answering the console' }, admin: true });
    const note = screen.getByRole('note');
    expect(note).toHaveTextContent(/^unconfirmed since \d\d:\d\d:\d\d · ZooKeeper member h:1 is not answering the console$/);
    expect(note).toHaveAttribute('data-as-of', String(at));
    expect(screen.queryByText('live')).toBeNull();
    expect(screen.getByRole('button', { name: 'Clean leaked…' })).toBeDisabled();
  });

  it('disables cleaning while the session is read-only, and says why', () => {
    const reason = 'read-only: member 3 has lost quorum; data as of its last sync';
    show({ freshness: { live: false, asOf: NOW - 5_000, reason, readOnly: true }, admin: true });
    const clean = screen.getByRole('button', { name: 'Clean leaked…' });
    expect(clean).toBeDisabled();
    expect(clean).toHaveAttribute('title', `Not while the data is not live (${reason}): what it would delete is not known to be current`);
    expect(screen.getByRole('button', { name: 'Scan for locks…' })).toBeEnabled();
  });

  it('says why nothing is shown: not yet read, or refused', () => {
    show({ entry: null, freshness: { live: false, asOf: null, reason: 'waiting for the console’s ZooKeeper session' } });
    expect(screen.getByText(/Nothing to show yet — waiting for the console’s ZooKeeper session/)).toBeInTheDocument();
  });
});
