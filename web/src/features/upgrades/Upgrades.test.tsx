// @vitest-environment jsdom
/**
 * The Upgrades view as an operator and an on-call viewer read it, from workflows the shared
 * reducer made on the toy ensemble (fixtures.ts): the headline sentence and bar, each member's
 * timeline with its checks and how the restart was seen, the paused reason as an alert, the
 * manual instruction, the plan with the full mode's risk and its typed phrase, skipping only with
 * the phrase, and a viewer seeing no control at all.
 */
import '../../testSupport/dom';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { summarizeUpgrade, workflowReducer, type ConsoleSessionSnapshot, type UpgradeWorkflow } from '@keeper/shared';
import type { Freshness } from '../../app/freshness/freshness';
import { withDialogs } from '../../testSupport/dialogs';
import { answer, ENSEMBLE, finished, finishedWithSkip, member2Done, pausedMember2, planned, restartingMember2, shared, wrongBuild } from './fixtures';
import { Upgrades } from './Upgrades';
import type { UpgradeEntry } from './upgradeTopic';

withDialogs();

const LIVE: Freshness = { live: true };
const HISTORY = [summarizeUpgrade({ ...finished().wf, id: 'u0' })];

let requests: { method: string; url: string; body: unknown }[] = [];
let reply: (method: string, url: string, body: unknown) => Response;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  requests = [];
  reply = () => Response.json({ error: { code: 'UPGRADE_REFUSED', message: 'not in this test' } }, { status: 409 });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET';
      const body: unknown = init?.body ? JSON.parse(String(init.body)) : undefined;
      if (method === 'GET' && url === `/api/ensembles/${ENSEMBLE}/upgrades`) return Response.json({ ensemble: ENSEMBLE, upgrades: HISTORY });
      requests.push({ method, url, body });
      return reply(method, url, body);
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function entryOf(wf: UpgradeWorkflow | null): UpgradeEntry {
  const at = wf?.updatedAt ?? Date.now();
  vi.setSystemTime(at + 1_000);
  // As the topic sends it to every browser: the restart commands withheld.
  return { kind: 'upgrade', upgrade: wf && shared(wf, at), at, receivedAt: at + 1_000, epoch: 1 };
}

function show(wf: UpgradeWorkflow | null, { admin = false, freshness = LIVE }: { admin?: boolean; freshness?: Freshness } = {}) {
  const entry = entryOf(wf);
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter>
        <Upgrades ensemble={ENSEMBLE} entry={entry} freshness={freshness} admin={admin} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const card = (name: string) => screen.getByRole('article', { name });
const checkLines = (name: string) =>
  within(screen.getByRole('list', { name: `Checks of ${name}` }))
    .getAllByRole('listitem')
    .map((li) => li.textContent);

describe('the Upgrades view', () => {
  it('says which member restarts and which come next, with the bar, the time so far and the order of the timelines', () => {
    const { wf } = restartingMember2();
    show(wf);
    expect(screen.getByText('Restarting member 2 (next: 3, then the leader, 1)')).toBeInTheDocument();
    const bar = screen.getByRole('progressbar', { name: 'Upgrade progress' });
    expect(Number(bar.getAttribute('aria-valuenow'))).toBeGreaterThan(0);
    expect(bar).toHaveAttribute('aria-valuetext', expect.stringMatching(/^0 of 3 members, \d+%$/));
    expect(screen.getByText(/\d+ s elapsed/)).toBeInTheDocument();
    expect(screen.getByText('an estimate after the first member')).toBeInTheDocument();
    expect(screen.getAllByRole('article').map((a) => a.getAttribute('aria-label'))).toEqual(['member 2', 'member 3', 'the leader, member 1']);
    expect(card('member 2')).toHaveAttribute('aria-current', 'step');
    expect(within(card('member 2')).getByText('restarting')).toBeInTheDocument();
  });

  it('shows each check of a member with its time and what it saw, how the restart was seen, and to an admin the command’s output', async () => {
    const { wf } = member2Done('command');
    reply = (method, url) =>
      method === 'GET' && url === `/api/ensembles/${ENSEMBLE}/upgrades/u1` ? Response.json(answer(wf)) : Response.json({}, { status: 500 });
    show(wf, { admin: true });
    const lines = checkLines('member 2');
    expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\dokvoters serving3 of 3 voters serving$/));
    expect(lines).toContainEqual(expect.stringMatching(/okback servingserving again as follower$/));
    expect(lines).toContainEqual(expect.stringMatching(/oksynced followers2 of 2 followers synced/));
    expect(within(card('member 2')).getByText('done')).toBeInTheDocument();
    expect(within(card('member 2')).getByText('seen down')).toBeInTheDocument();
    // The topic carries no command: an admin's view reads it over HTTP.
    expect(await within(card('member 2')).findByText('$ ssh zk2 sudo systemctl restart zookeeper')).toBeInTheDocument();
    expect(screen.getByLabelText('Output of the restart of member 2')).toHaveTextContent('Started zookeeper.service - Apache ZooKeeper (member 2).');
    expect(requests.filter((r) => r.method === 'GET')).toHaveLength(1);
    // One member done: an estimate of what is left.
    expect(screen.getByText(/^about \d+ s left$/)).toBeInTheDocument();
    expect(screen.getByText('Restarting member 3 (next: the leader, 1)')).toBeInTheDocument();
  });

  it('says where Keeper’s own session moved, that it did not expire, and the clients on the member restarting', () => {
    const { wf, sim } = restartingMember2();
    const h = sim.poll();
    const health = { ...h, members: h.members.map((m) => (m.address === 'zk2:2181' ? { ...m, metrics: { ...m.metrics, connections: 3 } } : m)) };
    const at = wf.startedAt! + 500;
    const session: ConsoleSessionSnapshot = {
      state: 'connected',
      sessionId: '0x1',
      member: 'zk3:2181',
      since: at,
      timeoutMs: 30_000,
      sessionsOpened: 1,
      confirmedAt: at,
      establishedAt: wf.createdAt - 60_000,
      timeline: [
        { at: wf.createdAt - 60_000, state: 'connected', sessionId: '0x1', member: 'zk2:2181' },
        { at, state: 'connected', sessionId: '0x1', member: 'zk3:2181' },
      ],
    };
    const entry = entryOf(wf);
    render(
      <QueryClientProvider client={new QueryClient()}>
        <Upgrades ensemble={ENSEMBLE} entry={entry} freshness={LIVE} admin={false} health={health} session={session} />
      </QueryClientProvider>,
    );
    const around = within(screen.getByRole('list', { name: 'Clients during the upgrade' })).getAllByRole('listitem');
    expect(around[0]).toHaveTextContent(/^Keeper’s own session: on zk3:2181 · moved from zk2:2181 to zk3:2181 at \d\d:\d\d:\d\d · no expiry since the start$/);
    // The toy ensemble's leader reports no zk_stale_sessions_expired: Keeper says it does not know.
    expect(around[1]).toHaveTextContent(/^Session expiries not known/);
    expect(around[2]).toHaveTextContent('Clients on member 2 (zk2:2181): 3 connections, moving to the other members');
  });

  it('shows a viewer each restart’s exit code, never its command or output', () => {
    const { wf } = member2Done('command');
    show(wf);
    expect(within(card('member 2')).getByText(/^Restart command: exited/)).toHaveTextContent(
      'Restart command: exited 0. Its command line and output are shown to admins only.',
    );
    expect(screen.queryByText(/ssh zk2/)).toBeNull();
    expect(screen.queryByLabelText('Output of the restart of member 2')).toBeNull();
    expect(document.body.textContent).not.toContain('zookeeper.service');
    expect(requests).toEqual([]);
  });

  it('ends an upgrade with a skipped member “done with exceptions”, in amber, naming the member and its build', async () => {
    const { wf } = finishedWithSkip();
    expect(wf.state).toBe('doneWithExceptions');
    show(wf);
    const badge = screen.getByRole('heading', { name: /Rolling restart/ }).querySelector('.status')!;
    expect(badge).toHaveTextContent('done with exceptions');
    expect(badge).toHaveClass('tone-degraded');
    expect(badge).not.toHaveClass('tone-live');
    const exceptions = screen.getByText('Done with exceptions').closest('.callout')!;
    expect(exceptions).toHaveTextContent('member 3 was skipped (not restarted by this upgrade); it runs 3.8.0 built on 2023-10-30.');
    expect(screen.getByText(/^Done with exceptions: 2 members restarted in \d+ s, 1 skipped; not as planned: member 3\.$/)).toBeInTheDocument();
    expect(within(card('member 3')).getByText('skipped')).toBeInTheDocument();
    expect(checkLines('member 3')).toContainEqual(expect.stringMatching(/failingchecked againchecked again at the end: member 3 was skipped/));
    // Never green anywhere on the page.
    expect(document.querySelector('.upgrade-panel .tone-live.status')).toBeNull();
  });

  it('says a build that is not the target as it is, and an admin restarts the member again', async () => {
    const user = userEvent.setup();
    const { wf } = wrongBuild();
    expect(wf.state).toBe('paused');
    const sentence = 'member 2 serves and is synced, but runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29';
    reply = () => Response.json(answer(workflowReducer(wf, { type: 'restartAgain', address: 'zk2:2181', at: wf.updatedAt + 500, by: 'alice' })));
    show(wf, { admin: true });
    expect(screen.getByRole('alert')).toHaveTextContent(`${sentence}. Restart it again, skip it, or abort.`);
    expect(screen.queryByText(/did not sync/)).toBeNull();
    const member2 = card('member 2');
    expect(within(member2).getByRole('button', { name: 'Skip member 2 (zk2:2181)…' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Abort…' })).toBeInTheDocument();
    await user.click(within(member2).getByRole('button', { name: 'Restart again' }));
    expect(requests).toEqual([{ method: 'POST', url: `/api/ensembles/${ENSEMBLE}/upgrades/u1/steps/zk2%3A2181/restartAgain`, body: {} }]);
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    expect(within(card('member 2')).getByText('waiting')).toBeInTheDocument();
    expect(within(card('member 2')).queryByRole('button', { name: 'Restart again' })).toBeNull();
  });

  it('says a fast restart was seen by its uptime going back to 0', () => {
    const { wf } = member2Done('sandbox', { fast: true });
    show(wf);
    expect(within(card('member 2')).getByText('uptime went back to 0')).toBeInTheDocument();
    expect(checkLines('member 2')).toContainEqual(expect.stringMatching(/okrestart seenuptime went back to 0 s \(it was \d+ s/));
  });

  it('shows a viewer the same upgrade without a single control', () => {
    show(restartingMember2('manual').wf);
    expect(screen.getByText('Restart member 2, zk2:2181, now.')).toBeInTheDocument();
    expect(screen.queryAllByRole('button')).toEqual([]);
    expect(screen.queryByRole('form', { name: 'Plan an upgrade' })).toBeNull();
  });

  it('shows a viewer a plan without Start, and no plan form when nothing runs', () => {
    show(planned().wf);
    expect(screen.getByText('Order: member 2, member 3, then the leader, member 1.')).toBeInTheDocument();
    expect(screen.queryAllByRole('button')).toEqual([]);
  });

  it('shows a paused upgrade’s reason as an alert, and an admin resumes it', async () => {
    const user = userEvent.setup();
    const { wf } = pausedMember2();
    expect(wf.state).toBe('paused');
    reply = () => Response.json(answer(workflowReducer(wf, { type: 'resume', at: wf.updatedAt + 500, by: 'alice' })));
    show(wf, { admin: true });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('The upgrade is paused');
    expect(alert).toHaveTextContent('member 2 (zk2:2181) did not come back within 10 s: last seen down (connection refused)');
    expect(screen.queryByRole('button', { name: 'Pause' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Resume' }));
    expect(requests).toEqual([{ method: 'POST', url: `/api/ensembles/${ENSEMBLE}/upgrades/u1/resume`, body: {} }]);
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
  });

  it('skips a member only once its exact phrase is typed', async () => {
    const user = userEvent.setup();
    const { wf } = restartingMember2();
    reply = (_m, _u, body) =>
      Response.json(
        answer(
          workflowReducer(wf, {
            type: 'skip',
            address: 'zk2:2181',
            at: wf.updatedAt + 500,
            by: 'alice',
            confirmation: (body as { confirmation: string }).confirmation,
          }),
        ),
      );
    show(wf, { admin: true });
    await user.click(within(card('member 2')).getByRole('button', { name: 'Skip member 2 (zk2:2181)…' }));
    const dialog = screen.getByRole('dialog', { name: 'Skip member 2 (zk2:2181)' });
    const input = within(dialog).getByRole('textbox', { name: 'Type skip member 2 to confirm' });
    const skip = within(dialog).getByRole('button', { name: 'Skip this member' });
    await user.type(input, 'skip member 3');
    expect(skip).toBeDisabled();
    await user.keyboard('{Enter}');
    expect(requests).toEqual([]);
    await user.clear(input);
    await user.type(input, 'skip member 2');
    expect(skip).toBeEnabled();
    await user.click(skip);
    expect(requests).toEqual([
      { method: 'POST', url: `/api/ensembles/${ENSEMBLE}/upgrades/u1/steps/zk2%3A2181/skip`, body: { confirmation: 'skip member 2' } },
    ]);
    await waitFor(() => expect(within(card('member 2')).getByText('skipped')).toBeInTheDocument());
    expect(screen.getByText('Checking the gates before restarting member 3 (next: the leader, 1)')).toBeInTheDocument();
  });

  it('puts a manual restart’s instruction first, and an admin marks it done', async () => {
    const user = userEvent.setup();
    const { wf } = restartingMember2('manual');
    reply = () => Response.json(answer(workflowReducer(wf, { type: 'markDone', address: 'zk2:2181', at: wf.updatedAt + 500, by: 'alice' })));
    show(wf, { admin: true });
    expect(screen.getByText('Restart member 2, zk2:2181, now.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Mark done' }));
    expect(requests).toEqual([{ method: 'POST', url: `/api/ensembles/${ENSEMBLE}/upgrades/u1/steps/zk2%3A2181/markDone`, body: {} }]);
    await waitFor(() => expect(screen.queryByText('Restart member 2, zk2:2181, now.')).toBeNull());
    expect(within(card('member 2')).getByText('marked done by an operator')).toBeInTheDocument();
  });

  it('pauses at once, and aborts only after the dialog asks', async () => {
    const user = userEvent.setup();
    const { wf } = restartingMember2();
    reply = (_m, url, body) => {
      const at = wf.updatedAt + 500;
      const reason = (body as { reason?: string }).reason ?? null;
      return Response.json(
        answer(workflowReducer(wf, url.endsWith('/abort') ? { type: 'abort', at, by: 'alice', reason } : { type: 'pause', at, by: 'alice' })),
      );
    };
    show(wf, { admin: true });
    await user.click(screen.getByRole('button', { name: 'Abort…' }));
    expect(requests).toEqual([]);
    const dialog = screen.getByRole('dialog', { name: 'Abort the upgrade' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Reason (optional)' }), 'wrong window');
    await user.click(within(dialog).getByRole('button', { name: 'Abort the upgrade' }));
    expect(requests).toEqual([{ method: 'POST', url: `/api/ensembles/${ENSEMBLE}/upgrades/u1/abort`, body: { reason: 'wrong window' } }]);
    await waitFor(() => expect(screen.getByText(/^Aborted at member 2: /)).toBeInTheDocument());
  });

  it('plans a full restart: its risk before and after the check, the preflight, the order, and Start only with the phrase', async () => {
    const user = userEvent.setup();
    const plan = planned({ mode: 'full' }).wf;
    reply = (_m, url, body) => {
      if (url.endsWith('/upgrades')) return Response.json(answer(plan), { status: 201 });
      const h = planned().sim.poll();
      return Response.json(
        answer(
          workflowReducer(plan, { type: 'start', at: h.polledAt, by: 'alice', health: h, confirmation: (body as { confirmation?: string }).confirmation }),
        ),
      );
    };
    show(null, { admin: true });
    const form = screen.getByRole('form', { name: 'Plan an upgrade' });
    expect(within(form).getByRole('radio', { name: /Rolling/ })).toBeChecked();
    expect(within(form).queryByText(/A full restart is an outage/)).toBeNull();
    await user.click(within(form).getByRole('radio', { name: /Full/ }));
    expect(within(form).getByRole('note')).toHaveTextContent(
      'A full restart is an outage: every client disconnects; sessions survive only if it is shorter than their timeouts.',
    );
    await user.type(within(form).getByRole('textbox', { name: 'Target version (optional)' }), 'built on 2024-12-29');
    await user.click(within(form).getByRole('button', { name: 'Check and plan' }));
    expect(requests).toEqual([{ method: 'POST', url: `/api/ensembles/${ENSEMBLE}/upgrades`, body: { mode: 'full', targetVersion: 'built on 2024-12-29' } }]);

    const planForm = await screen.findByRole('form', { name: 'The plan' });
    expect(within(planForm).getByText('Order: member 2, member 3, then the leader, member 1.')).toBeInTheDocument();
    expect(within(planForm).getByText(/A full restart is an outage/)).toBeInTheDocument();
    expect(
      within(screen.getByRole('list', { name: 'Preflight checks' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      'okvoters serving3 of 3 voters serving',
      expect.stringMatching(/^oksynced followers2 of 2 followers synced/),
      expect.stringMatching(/^okzxid caught up/),
      expect.stringMatching(/^okmembers answer/),
      expect.stringMatching(/^oktolerates a failure/),
    ]);
    const start = within(planForm).getByRole('button', { name: 'Start' });
    expect(start).toBeDisabled();
    await user.type(within(planForm).getByRole('textbox', { name: 'Type restart main with an outage to accept the outage' }), 'restart main with an outage');
    expect(start).toBeEnabled();
    await user.click(start);
    expect(requests[1]).toEqual({ method: 'POST', url: `/api/ensembles/${ENSEMBLE}/upgrades/u1/start`, body: { confirmation: 'restart main with an outage' } });
    await waitFor(() => expect(screen.getByText(/^Restarting all 3 members at once/)).toBeInTheDocument());
  });

  it('lists past upgrades below', async () => {
    show(finished().wf);
    const table = await screen.findByRole('table', { name: 'Upgrades' });
    const cells = within(within(table).getAllByRole('row')[1]!)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells[0]).toBe('done');
    expect(cells.slice(2, 6)).toEqual(['rolling', '3 of 3', '32 s', 'alice']);
    expect(cells[6]).toBe('raise maxClientCnxns to 120');
    expect(screen.getByText('Done: 3 members restarted in 32 s; each checked at the end, serving in its role.')).toBeInTheDocument();
  });

  it('says "as of" once the data is not live, and acts on nothing it cannot see is current', () => {
    const at = Date.UTC(2026, 10, 25, 12, 0, 0);
    show(restartingMember2().wf, { admin: true, freshness: { live: false, asOf: at, reason: 'refreshing after a reconnect' } });
    expect(screen.getByText(/^as of \d\d:\d\d:\d\d$/).closest('[data-as-of]')).toHaveAttribute('data-as-of', String(at));
    expect(screen.getByRole('button', { name: 'Pause' })).toBeDisabled();
  });
});
