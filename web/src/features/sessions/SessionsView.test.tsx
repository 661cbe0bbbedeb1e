// @vitest-environment jsdom
/**
 * The sessions view as an operator uses it: the server's answer (the fixture a 3-member sandbox
 * gives) comes through fetch, the route is the real one, and the assertions read what is on
 * screen: row order, the sort arrows, the console's own session, the filter's count.
 */
import '../../testSupport/dom';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionsAnswer } from '@keeper/shared';
import { withLayout } from '../../testSupport/layout';
import { sessions, T0 } from '../../testSupport/ensembleFixtures';
import { SessionsView } from './SessionsView';

withLayout({ viewportHeight: 600, rowHeight: 30 });

/** Four ordinary sessions, the console's own, a 15-min-timeout one (101), a silent one (102), a disconnected one (103). */
const ANSWER: SessionsAnswer = sessions(4);
const CONSOLE_ID = '0x100000a3b52c400';

let requests: string[] = [];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0 + 2_000);
  requests = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      requests.push(url);
      return Response.json(ANSWER);
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function renderSessions(url: string) {
  // The view retries a failed read once; without a delay here, so a test sees the outcome at once.
  const client = new QueryClient({ defaultOptions: { queries: { retryDelay: 0 } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[url]}>
        <Routes>
          <Route path="/ensembles/:name/sessions/:sessionId?" element={<SessionsView />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

async function openSessions(url = '/ensembles/default/sessions') {
  renderSessions(url);
  await screen.findByText(/8 sessions ·/);
}

function bodyRows(): HTMLElement[] {
  const table = screen.getByRole('table', { name: 'Sessions' });
  const [, body] = within(table).getAllByRole('rowgroup');
  return within(body!).queryAllByRole('row');
}

/** The session ids down the table, as printed in the first column. */
function shownIds(): string[] {
  return bodyRows().map((row) => within(within(row).getAllByRole('cell')[0]!).getByText(/^0x/).textContent ?? '');
}

function shownClients(): string[] {
  return bodyRows().map((row) => within(row).getAllByRole('cell')[1]!.textContent ?? '');
}

function header(label: string): HTMLElement {
  return screen.getByRole('columnheader', { name: new RegExp(`^${label}`) });
}

describe('sessions table', () => {
  it('reads the sessions from the server and lists problems first', async () => {
    await openSessions();
    expect(requests).toEqual(['/api/ensembles/default/sessions']);
    expect(screen.getByText(/8 sessions · 3 flagged/)).toBeInTheDocument();
    expect(header('Flags')).toHaveAttribute('aria-sort', 'descending');
    // 103 has two flags (no connection, long timeout); 102 and 101 one each, the longest silent (102) first.
    expect(shownIds().slice(0, 3)).toEqual(['0x100000a3b52c467', '0x100000a3b52c466', '0x100000a3b52c465']);
    expect(within(bodyRows()[0]!).getByText('no connection', { selector: '.srow__none' })).toBeInTheDocument();
    expect(within(bodyRows()[1]!).getByText('silent')).toBeInTheDocument();
  });

  it('marks the console’s own session, and only that one', async () => {
    await openSessions();
    const marked = bodyRows().filter((row) => within(row).queryByText('console') !== null);
    expect(marked).toHaveLength(1);
    expect(marked[0]).toHaveTextContent(CONSOLE_ID);
    expect(within(marked[0]!).getByText('console')).toHaveAttribute('title', expect.stringMatching(/Keeper’s own session/));
  });

  it('sorts by a column when its header is clicked, and reverses on a second click', async () => {
    const user = userEvent.setup();
    await openSessions();
    await user.click(within(header('Client')).getByRole('button'));
    expect(header('Client')).toHaveAttribute('aria-sort', 'ascending');
    expect(header('Flags')).toHaveAttribute('aria-sort', 'none');
    // Host, then port as a number; the disconnected session (no client address) last in either direction.
    const ascending = [
      '10.0.4.21:50007',
      '10.0.4.22:50014',
      '10.0.4.23:50021',
      '10.0.4.24:50028',
      '10.0.4.41:50707',
      '10.0.4.42:50714',
      '127.0.0.1:41522',
      'no connection',
    ];
    expect(shownClients()).toEqual(ascending);

    await user.click(within(header('Client')).getByRole('button'));
    expect(header('Client')).toHaveAttribute('aria-sort', 'descending');
    expect(shownClients()).toEqual([...ascending.slice(0, -1).reverse(), 'no connection']);
  });

  it('sorts from the keyboard: Enter or Space on a header', async () => {
    const user = userEvent.setup();
    await openSessions();
    within(header('Timeout')).getByRole('button').focus();
    await user.keyboard('{Enter}');
    // Longest timeout first: 101 and 103 (15 min), then the 30 s ones by id.
    expect(header('Timeout')).toHaveAttribute('aria-sort', 'descending');
    expect(shownIds().slice(0, 2)).toEqual(['0x100000a3b52c465', '0x100000a3b52c467']);
    await user.keyboard(' ');
    expect(header('Timeout')).toHaveAttribute('aria-sort', 'ascending');
    expect(shownIds().at(-1)).toBe('0x100000a3b52c467');
  });

  it('moves between rows with the arrow keys, opens one with Enter and closes it with Escape', async () => {
    const user = userEvent.setup();
    await openSessions();
    const first = bodyRows()[0]!;
    expect(first).toHaveAttribute('tabindex', '0');
    first.focus();
    await user.keyboard('{ArrowDown}');
    expect(bodyRows()[1]).toHaveFocus();
    await user.keyboard('{Enter}');
    const opened = bodyRows()[1]!;
    expect(opened).toHaveAttribute('aria-expanded', 'true');
    // The detail of 102: its flag in full and the ephemeral node it owns.
    expect(within(opened).getByRole('heading', { name: /Ephemeral nodes/ })).toBeInTheDocument();
    expect(within(opened).getByRole('link', { name: '/election/n_0000000012' })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(bodyRows()[1]).toHaveAttribute('aria-expanded', 'false');
  });

  it('opens the session a link names', async () => {
    await openSessions('/ensembles/default/sessions/0x100000a3b52c465');
    const row = bodyRows().find((r) => r.getAttribute('aria-expanded') === 'true');
    expect(row).toHaveTextContent('0x100000a3b52c465');
    expect(within(row!).getByRole('link', { name: '/locks/jobs/_c_8f3e-lock-0000000041' })).toBeInTheDocument();
  });

  it('says a linked session is gone instead of showing nothing', async () => {
    await openSessions('/ensembles/default/sessions/0x1000000000000ff');
    expect(screen.getByRole('note')).toHaveTextContent('not found Session 0x1000000000000ff is not in this gathering');
  });
});

describe('filtering', () => {
  it('keeps the sessions whose id, client, member, paths or flags match every word', async () => {
    const user = userEvent.setup();
    await openSessions();
    await user.type(screen.getByRole('searchbox', { name: 'Filter sessions' }), 'worker-7');
    expect(shownIds()).toEqual(['0x100000a3b52c465']);
    expect(screen.getByText('showing 1 of 8')).toBeInTheDocument();

    await user.clear(screen.getByRole('searchbox', { name: 'Filter sessions' }));
    await user.type(screen.getByRole('searchbox', { name: 'Filter sessions' }), 'console 2192');
    expect(shownIds()).toEqual([CONSOLE_ID]);
  });

  it('says when nothing matches, and Escape clears the filter', async () => {
    const user = userEvent.setup();
    await openSessions();
    const box = screen.getByRole('searchbox', { name: 'Filter sessions' });
    await user.type(box, 'no-such-client');
    expect(bodyRows()).toHaveLength(0);
    expect(screen.getByText('No session matches the filter.')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(box).toHaveValue('');
    expect(bodyRows()).toHaveLength(8);
  });

  it('shows only the flagged sessions while "Flagged only" is pressed', async () => {
    const user = userEvent.setup();
    await openSessions();
    const button = screen.getByRole('button', { name: 'Flagged only (3)' });
    await user.click(button);
    expect(button).toHaveAttribute('aria-pressed', 'true');
    expect(shownIds().sort()).toEqual(['0x100000a3b52c465', '0x100000a3b52c466', '0x100000a3b52c467']);
    await user.click(button);
    expect(bodyRows()).toHaveLength(8);
  });
});

describe('gathering', () => {
  it('says the sessions cannot be read, and reads them again on Retry', async () => {
    const user = userEvent.setup();
    vi.mocked(fetch).mockImplementation(async (url) => {
      requests.push(String(url));
      return Response.json({ error: { code: 'ZK_UNAVAILABLE', message: 'no member answered cons' } }, { status: 503 });
    });
    renderSessions('/ensembles/default/sessions');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('cannot read sessions no member answered cons');
    expect(requests).toHaveLength(2);

    vi.mocked(fetch).mockImplementation(async () => Response.json(ANSWER));
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText(/8 sessions ·/)).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('"Gather now" shows the new gathering', async () => {
    const user = userEvent.setup();
    await openSessions();
    vi.mocked(fetch).mockImplementationOnce(async (url) => {
      requests.push(String(url));
      return Response.json(sessions(5));
    });
    await user.click(screen.getByRole('button', { name: 'Gather now' }));
    expect(requests.at(-1)).toBe('/api/ensembles/default/sessions?refresh=true');
    expect(await screen.findByText(/9 sessions ·/)).toBeInTheDocument();
    expect(bodyRows()).toHaveLength(9);
  });

  it('says how old the gathering is and which members it could not ask', async () => {
    await openSessions();
    expect(screen.getByText('14 s ago')).toBeInTheDocument();
    expect(screen.getByText(/cons is not in 4lw.commands.whitelist/)).toHaveTextContent('127.0.0.1:2193: cons is not in 4lw.commands.whitelist');
  });

  it('after "Gather now" is refused (429), says when the next gathering is allowed', async () => {
    const user = userEvent.setup();
    await openSessions();
    vi.mocked(fetch).mockImplementationOnce(async (url) => {
      requests.push(String(url));
      return Response.json({ error: { code: 'RATE_LIMITED', message: 'one gathering per 10 s' } }, { status: 429, headers: { 'Retry-After': '9' } });
    });
    await user.click(screen.getByRole('button', { name: 'Gather now' }));
    expect(requests.at(-1)).toBe('/api/ensembles/default/sessions?refresh=true');
    expect(await screen.findByText('next gathering allowed in 9 s')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Gather now' })).toBeDisabled();
  });
});

describe('rates and the request herd', () => {
  /** Sessions 1 and 2 from 10.0.4.21/22 hammer the ensemble; the server named the herd. */
  function herdAnswer(): SessionsAnswer {
    const answer = sessions(4);
    const rates: Record<string, number> = { '0x100000a3b52c401': 95, '0x100000a3b52c402': 120 };
    return {
      ...answer,
      ratesOverSeconds: 12,
      sessions: answer.sessions.map((s) => ({ ...s, requestsPerSecond: rates[s.sessionId] ?? (s.connected === false ? null : 0.1) })),
      herd: {
        sessions: 2,
        requestsPerSecond: 215,
        minRate: 95,
        maxRate: 120,
        hosts: [
          { host: '10.0.4.22', sessions: 1, requestsPerSecond: 120 },
          { host: '10.0.4.21', sessions: 1, requestsPerSecond: 95 },
        ],
        operation: 'GETC',
        latencyAvgMs: 6,
        latencyMaxMs: 140,
        othersLatencyAvgMs: 0.4,
        slowSessions: 2,
        slowRequestMs: 50,
        outstanding: 12,
        queued: 0,
        target: null,
      },
      alerts: [
        {
          id: 'request-herd',
          severity: 'warning',
          title: 'Request herd: 2 sessions from 2 hosts send 215 req/s together, mostly getChildren',
          why: '2 sessions send requests at similar high rates.',
          action: 'Back off with deadlines (kazoo: KazooRetry(max_tries=..., deadline=...)).',
          members: [],
        },
      ],
    };
  }

  beforeEach(() => {
    vi.mocked(fetch).mockImplementation(async () => Response.json(herdAnswer()));
  });

  it('shows the herd with what to do, and sorts the busiest first', async () => {
    const user = userEvent.setup();
    await openSessions();
    const herd = screen.getByRole('alert', { name: /Request herd: 2 sessions/ });
    expect(herd).toHaveTextContent('What to do Back off with deadlines');
    expect(screen.getByText(/rates over the last 12 s/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Busiest first' }));
    expect(header('Req/s')).toHaveAttribute('aria-sort', 'descending');
    expect(shownIds().slice(0, 2)).toEqual(['0x100000a3b52c402', '0x100000a3b52c401']);
    expect(within(bodyRows()[0]!).getAllByRole('cell')[6]).toHaveTextContent('120');
  });

  it('counts the herd’s sessions as flagged, each with a "herd" badge and no sentence under it (the banner says it)', async () => {
    const message = 'One of 2 sessions the request herd names: together they send 215 req/s of getChildren.';
    const answer = herdAnswer();
    const flagged = {
      ...answer,
      sessions: answer.sessions.map((s) =>
        s.sessionId === '0x100000a3b52c401' || s.sessionId === '0x100000a3b52c402'
          ? { ...s, flags: [...s.flags, { kind: 'request-herd' as const, message }] }
          : s,
      ),
    };
    vi.mocked(fetch).mockImplementation(async () => Response.json(flagged));
    await openSessions();
    const herdRows = bodyRows().filter((row) => within(row).queryByText('herd'));
    expect(herdRows).toHaveLength(2);
    for (const row of herdRows) expect(within(row).getByText('herd')).toHaveAttribute('title', message);
    expect(screen.queryByText(message)).toBeNull();
    const flaggedCount = flagged.sessions.filter((s) => s.flags.length > 0).length;
    expect(screen.getByText(new RegExp(`${flaggedCount} flagged`))).toBeInTheDocument();
  });

  it('sums sessions by client host, marks the herd’s hosts, and filters to a host from the keyboard', async () => {
    const user = userEvent.setup();
    await openSessions();
    await user.click(screen.getByRole('button', { name: 'By host' }));
    const list = screen.getByRole('list', { name: 'Sessions by client host' });
    const hosts = within(list).getAllByRole('button');
    expect(hosts[0]).toHaveTextContent('1 session from 10.0.4.22, 120 req/s herd');
    expect(hosts[1]).toHaveTextContent('1 session from 10.0.4.21, 95 req/s herd');
    hosts[0]!.focus();
    await user.keyboard('{ArrowDown}{Enter}');
    expect(hosts[1]).toHaveAttribute('aria-pressed', 'true');
    expect(shownIds()).toEqual(['0x100000a3b52c401']);
    await user.keyboard('{Enter}');
    expect(bodyRows()).toHaveLength(8);
  });
});
