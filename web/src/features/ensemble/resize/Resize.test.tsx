// @vitest-environment jsdom
/**
 * The resize page as an admin plans and runs it and as a viewer follows it: the plan computed as
 * the change is made (ZooKeeper's syntax, the size before and after, refusals), "Plan" sending
 * exactly the change, the typed phrase a risky plan needs before Start, the run's bar and steps,
 * and a viewer seeing every word without a single control.
 */
import '../../../testSupport/dom';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { planReconfig, type ReconfigWorkflow } from '@keeper/shared';
import type { Freshness } from '../../../app/freshness/freshness';
import { withDialogs } from '../../../testSupport/dialogs';
import { Resize } from './Resize';
import type { ReconfigEntry } from './reconfigTopic';

withDialogs();

const ENSEMBLE = 'prod';
const LIVE: Freshness = { live: true };
const line = (id: number, role = 'participant') => `server.${id}=127.0.0.1:${2880 + id}:${3880 + id}:${role};127.0.0.1:${2190 + id}`;
const CONFIG = `${[1, 2, 3].map((id) => line(id)).join('\n')}\nversion=100000000`;

let requests: { method: string; url: string; body: unknown }[] = [];
let reply: (method: string, url: string, body: unknown) => Response | Promise<Response>;

beforeEach(() => {
  requests = [];
  reply = () => Response.json({ error: { code: 'RECONFIG_REFUSED', message: 'not in this test' } }, { status: 409 });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET';
      const body: unknown = init?.body ? JSON.parse(String(init.body)) : undefined;
      if (method === 'GET' && url === `/api/ensembles/${ENSEMBLE}/reconfig`) return Response.json({ ensemble: ENSEMBLE, reconfigs: [] });
      if (method === 'GET' && url.startsWith(`/api/ensembles/${ENSEMBLE}/znodes/zookeeper/config`)) {
        return Response.json({
          ensemble: ENSEMBLE,
          path: '/zookeeper/config',
          stat: {
            czxid: '0x0',
            mzxid: '0x100000000',
            pzxid: '0x0',
            ctime: 0,
            mtime: 1_700_000_000_000,
            version: 1,
            cversion: 0,
            aversion: 0,
            ephemeralOwner: '0x0',
            dataLength: CONFIG.length,
            numChildren: 0,
          },
          data: { encoding: 'utf8', value: CONFIG, size: CONFIG.length, truncated: false },
          children: { total: 0, offset: 0, limit: 1, names: [] },
        });
      }
      requests.push({ method, url, body });
      return reply(method, url, body);
    }),
  );
});

afterEach(() => vi.unstubAllGlobals());

/** A workflow as the server stores it, from the shared planner's plan. */
function workflow(change: { add?: string[]; remove?: string[] }, patch: Partial<ReconfigWorkflow> = {}): ReconfigWorkflow {
  const plan = planReconfig({ configText: CONFIG, change, leaderId: 1, connectedMemberId: 2 });
  if (!plan.ok) throw new Error(plan.refusals.join('; '));
  return {
    id: '0c1d2e3f-1111-2222-3333-444455556666',
    ensemble: ENSEMBLE,
    state: 'planned',
    reason: null,
    createdAt: 1_700_000_100_000,
    createdBy: 'admin',
    updatedAt: 1_700_000_100_000,
    finishedAt: null,
    change: { add: change.add ?? [], remove: change.remove ?? [], roles: {} },
    fromConfig: plan.fromConfig,
    verifiedVersion: plan.fromConfig,
    sizeSentence: plan.sizeSentence,
    before: plan.before,
    after: plan.after,
    risks: plan.risks,
    confirmationPhrase: plan.confirmationPhrase,
    confirmedBy: null,
    preflight: [{ id: 'reconfig-right', ok: true, saw: 'Keeper is the super user (whoAmI says super)', at: 1_700_000_100_000 }],
    steps: plan.steps.map((s) => ({
      index: s.index,
      kind: s.kind,
      memberId: s.memberId,
      joining: s.joining,
      leaving: s.leaving,
      zkCli: s.zkCli,
      leader: s.leader,
      sentence: s.sentence,
      state: 'pending' as const,
      fromConfig: null,
      version: null,
      sentAt: null,
      doneAt: null,
      attempts: 0,
      checks: [],
      reason: null,
    })),
    joiners: [],
    keeperSession: null,
    ...patch,
  };
}

function show(wf: ReconfigWorkflow | null, { admin = false }: { admin?: boolean } = {}) {
  const entry: ReconfigEntry = { kind: 'reconfig', reconfig: wf, at: Date.now(), receivedAt: Date.now(), epoch: 1 };
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter>
        <Resize ensemble={ENSEMBLE} entry={entry} freshness={LIVE} admin={admin} health={undefined} sessionMember="127.0.0.1:2192" deepId={null} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('the resize page', () => {
  it('plans as the change is made: the suggested line, the steps in ZooKeeper syntax, the sizes, and Plan sends exactly that change', async () => {
    const user = userEvent.setup();
    show(null, { admin: true });
    await user.click(await screen.findByRole('button', { name: '+ Add a member' }));
    const input = screen.getByRole('textbox', { name: 'Member to add, as a server line' });
    expect(input).toHaveValue(line(4));
    expect(input).toHaveFocus();
    await user.click(screen.getByRole('button', { name: '+ Add a member' }));
    const plan = screen.getByRole('region', { name: 'The plan' });
    expect(within(plan).getByText('3 voters tolerate 1 failure → 5 voters tolerate 2 failures')).toBeInTheDocument();
    expect(
      within(plan)
        .getAllByRole('listitem')
        .map((li) => li.querySelector('code')?.textContent),
    ).toEqual([`reconfig -add ${line(4)}`, `reconfig -add ${line(5)}`]);
    reply = (_method, _url, body) => Response.json(workflow(body as { add: string[] }), { status: 201 });
    await user.click(screen.getByRole('button', { name: 'Plan' }));
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]).toEqual({ method: 'POST', url: `/api/ensembles/${ENSEMBLE}/reconfig`, body: { add: [line(4), line(5)], remove: [], roles: {} } });
    expect(await screen.findByRole('form', { name: 'The resize' })).toHaveTextContent('planned');
  });

  it('says why a change cannot run, and keeps Plan disabled', async () => {
    const user = userEvent.setup();
    show(null, { admin: true });
    await user.click(await screen.findByRole('button', { name: '+ Add a member' }));
    const input = screen.getByRole('textbox', { name: 'Member to add, as a server line' });
    await user.clear(input);
    await user.type(input, 'server.4=127.0.0.1:2883:3884:participant;127.0.0.1:2194');
    expect(screen.getByRole('status', { name: 'Refused' })).toHaveTextContent('members 3 and 4 would both use 127.0.0.1:2883');
    expect(screen.getByRole('button', { name: 'Plan' })).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'Remove member 2' }));
    await user.clear(input);
    const plan = screen.getByRole('region', { name: 'The plan' });
    expect(plan).toHaveTextContent('3 voters tolerate 1 failure → 2 voters tolerate 0 failures');
    expect(plan).toHaveTextContent("It removes member 2, which Keeper's own session is connected to");
    expect(plan).toHaveTextContent('Needs a typed confirmation to start');
    // Two voters out of three at once would leave fewer than a majority of the voters before the second step.
    await user.click(screen.getByRole('checkbox', { name: 'Remove member 3' }));
    expect(screen.getByRole('status', { name: 'Refused' })).toHaveTextContent('fewer than a majority');
  });

  it('asks for the typed phrase before starting a risky plan, and sends it', async () => {
    const user = userEvent.setup();
    const wf = workflow({ remove: ['2'] });
    show(wf, { admin: true });
    expect(screen.getByText('3 voters tolerate 1 failure → 2 voters tolerate 0 failures')).toBeInTheDocument();
    const start = screen.getByRole('button', { name: 'Start' });
    expect(start).toBeDisabled();
    await user.type(screen.getByRole('textbox', { name: /Type .* to accept the risk/ }), 'leave 2 voters and remove member 2');
    expect(start).toBeEnabled();
    reply = () => Response.json({ ...wf, state: 'running', updatedAt: wf.updatedAt + 1 });
    await user.click(start);
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]).toEqual({
      method: 'POST',
      url: `/api/ensembles/${ENSEMBLE}/reconfig/${wf.id}/start`,
      body: { confirmation: 'leave 2 voters and remove member 2' },
    });
  });

  it('keeps Pause and Abort reachable while a start is answering, and a pause then goes out on its own', async () => {
    const user = userEvent.setup();
    const wf = workflow({ add: [line(4)] });
    show(wf, { admin: true });
    // The start answers only once the test lets it: its preflight takes seconds on a real ensemble.
    let answerStart!: () => void;
    const startAnswered = new Promise<void>((resolve) => (answerStart = resolve));
    reply = (_method, url) => {
      if (url.endsWith('/start')) return startAnswered.then(() => Response.json({ ...wf, state: 'paused', reason: 'paused by admin as it started' }));
      return Response.json({ ...wf, updatedAt: wf.updatedAt + 1 });
    };
    await user.click(screen.getByRole('button', { name: 'Start' }));
    const pause = await screen.findByRole('button', { name: 'Pause' });
    expect(pause).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Abort…' })).toBeEnabled();
    await user.click(pause);
    await waitFor(() => expect(requests.map((r) => r.url)).toContain(`/api/ensembles/${ENSEMBLE}/reconfig/${wf.id}/pause`));
    expect(requests.map((r) => r.url)).toEqual([`/api/ensembles/${ENSEMBLE}/reconfig/${wf.id}/start`, `/api/ensembles/${ENSEMBLE}/reconfig/${wf.id}/pause`]);
    answerStart();
  });

  it('shows a run live to a viewer, with its bar and each step, and no control at all', () => {
    const planned = workflow({ add: [line(4), line(5)] });
    const [first, second] = planned.steps;
    const running = workflow(
      { add: [line(4), line(5)] },
      {
        state: 'running',
        verifiedVersion: '100000007',
        steps: [
          { ...first!, state: 'done', fromConfig: '100000000', version: '100000007', sentAt: 1_700_000_101_000, doneAt: 1_700_000_102_000, attempts: 1 },
          { ...second!, state: 'verifying', fromConfig: '100000007', version: '10000000a', sentAt: 1_700_000_103_000, attempts: 1 },
        ],
        joiners: [
          {
            memberId: 5,
            role: 'participant',
            line: line(5),
            dynamicConfig: 'server.1=…',
            zooCfg: 'tickTime=2000',
            startCommand: null,
            startCommandWithheld: true,
          },
        ],
      },
    );
    show(running);
    const bar = screen.getByRole('progressbar', { name: 'Resize progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '50');
    expect(screen.getByText('step 2 of 2, verifying')).toBeInTheDocument();
    const steps = within(screen.getByRole('list', { name: 'Steps' })).getAllByRole('listitem');
    expect(steps[0]).toHaveTextContent(`verifiedreconfig -add ${line(4)} -v 100000000`);
    expect(steps[1]).toHaveTextContent(`reconfig -add ${line(5)} -v 100000007`);
    // Its members are running by now: how to start them is said while it is planned or paused, not while it runs.
    expect(screen.queryByRole('region', { name: 'Members to start' })).toBeNull();
    expect(screen.getByText('Following live; an admin can pause or abort it.')).toBeInTheDocument();
    for (const name of ['Pause', 'Abort…', 'Start', 'Plan', '+ Add a member']) expect(screen.queryByRole('button', { name })).toBeNull();
    expect(screen.queryByRole('textbox')).toBeNull();
  });
});
