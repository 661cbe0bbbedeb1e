// @vitest-environment jsdom
/**
 * The ensemble view from what the member poller sends (the fixtures: a 3-member sandbox, healthy
 * or with member 3 down), read the way an operator reads it: the quorum sentence, each member
 * card's state word, figures and outage, the alerts, and the "as of" note once the data is not live.
 */
import '../../testSupport/dom';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Alert, EnsembleEvent, EnsembleHealth } from '@keeper/shared';
import type { Freshness } from '../../app/freshness/freshness';
import { EnsembleBody } from './EnsembleBody';
import { healthy, history, oneDown, oneSyncing, T0 } from '../../testSupport/ensembleFixtures';

const LIVE: Freshness = { live: true };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0 + 4_000);
  window.sessionStorage.clear();
});

afterEach(() => vi.useRealTimers());

function show(
  health: EnsembleHealth | undefined,
  { freshness = LIVE, selected = null, events }: { freshness?: Freshness; selected?: string | null; events?: EnsembleEvent[] } = {},
) {
  return render(
    <MemoryRouter>
      <EnsembleBody
        ensemble="default"
        selected={selected}
        health={health}
        history={health ? history(health) : undefined}
        freshness={freshness}
        events={events}
      />
    </MemoryRouter>,
  );
}

function card(address: string): HTMLElement {
  return screen.getByRole('article', { name: address });
}

function stateWord(address: string): string {
  return card(address).querySelector('.member__state')?.textContent ?? '';
}

describe('member cards', () => {
  it('show each member’s role, how long ago it was checked, and its figures', () => {
    show(healthy());
    expect(stateWord('127.0.0.1:2192')).toBe('leader');
    expect(stateWord('127.0.0.1:2191')).toBe('follower');
    expect(stateWord('127.0.0.1:2193')).toBe('follower');
    const leader = card('127.0.0.1:2192');
    expect(within(leader).getByText('checked 4 s ago')).not.toHaveClass('member__checked--late');
    expect(within(leader).getByText('synced followers').nextElementSibling).toHaveTextContent('2 of 2');
    expect(within(leader).getByText('zxid').parentElement).toHaveTextContent('zxid 0x20000012f');
    // Only the leader has leader-only lines.
    expect(within(card('127.0.0.1:2191')).queryByText('synced followers')).toBeNull();
  });

  it('say a down member is down, for how long and why, without figures it cannot have', () => {
    show(oneDown());
    const down = card('127.0.0.1:2193');
    expect(stateWord('127.0.0.1:2193')).toBe('down');
    expect(down).toHaveClass('tone-lost');
    expect(within(down).getByText('down for 44 s')).toBeInTheDocument();
    expect(within(down).getByText('connection refused')).toBeInTheDocument();
    expect(within(down).getByText(/No figures: it does not answer/)).toBeInTheDocument();
  });

  it('turn the leader amber with the reason when a follower is not in sync', () => {
    show(oneSyncing());
    const leader = card('127.0.0.1:2192');
    expect(stateWord('127.0.0.1:2192')).toBe('leader');
    expect(leader).toHaveClass('tone-degraded');
    expect(within(leader).getByText('Followers not synced: 1 of 2')).toBeInTheDocument();
    expect(within(leader).getByText('synced followers').nextElementSibling).toHaveClass('figure--warn');
  });

  it("show each member's whole build string, and mark the one that differs from the others", () => {
    const h = healthy();
    const old = '3.8.0-${mvngit.commit.id}, built on 2023-10-30 11:22 UTC';
    const m3 = h.members[2]!;
    show({ ...h, members: [h.members[0]!, h.members[1]!, { ...m3, metrics: { ...m3.metrics, version: old } }] });
    const build = (address: string) => card(address).querySelector('.member__build')!;
    expect(build('127.0.0.1:2191')).toHaveTextContent('build 3.8.0-${mvngit.commit.id}, built on 2023-01-01 00:00 UTC');
    expect(build('127.0.0.1:2191')).not.toHaveTextContent('differs');
    expect(build('127.0.0.1:2193')).toHaveTextContent(`build ${old}differs`);
  });

  it('list a member a reconfig removed apart, still running, with what to do, and no card for it', () => {
    const base = healthy();
    const removed = {
      ...base.members[2]!,
      id: 4,
      address: '127.0.0.1:2194',
      clientPort: 2194,
      state: 'not-serving' as const,
      configuredRole: null,
      removed: true,
    };
    show({ ...base, removed: [removed] });
    const section = screen.getByRole('region', { name: 'Removed members' });
    expect(section).toHaveTextContent('member 4 127.0.0.1:2194: removed from the ensemble, still running: stop it.');
    expect(section).toHaveTextContent('It answers as not-serving; it counts in no quorum.');
    expect(screen.queryByRole('article', { name: '127.0.0.1:2194' })).toBeNull();
    expect(screen.getAllByRole('article')).toHaveLength(3);
  });

  it('mark a check that is several polls old as late', () => {
    vi.setSystemTime(T0 + 20_000);
    show(healthy());
    expect(within(card('127.0.0.1:2191')).getByText('checked 20 s ago')).toHaveClass('member__checked--late');
  });

  it('grey out once the data is not live, and the header says as of when', () => {
    const freshness: Freshness = { live: false, asOf: T0, reason: 'no connection to the Keeper server; reconnecting' };
    show(healthy(), { freshness });
    for (const address of ['127.0.0.1:2191', '127.0.0.1:2192', '127.0.0.1:2193']) expect(card(address)).toHaveClass('tone-stale');
    // The state word stays: what it was at that time.
    expect(stateWord('127.0.0.1:2192')).toBe('leader');
    const asOf = screen.getByRole('note');
    expect(asOf).toHaveTextContent(/^as of \d\d:\d\d:\d\d · no connection to the Keeper server; reconnecting$/);
    expect(asOf).toHaveAttribute('data-as-of', String(T0));
    expect(screen.queryByText('live')).toBeNull();
  });

  it('say "live" in the header while the data is live', () => {
    show(healthy());
    expect(screen.getByText('live')).toBeInTheDocument();
    expect(screen.queryByRole('note')).toBeNull();
  });

  it('open a deep-linked member first, expanded and scrolled to, and name an address that is not a member', () => {
    // jsdom lays nothing out, so it has no scrollIntoView: record which element the view scrolls to.
    const scrolledTo: Element[] = [];
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolledTo.push(this);
    };
    try {
      const { unmount } = show(oneDown(), { selected: '127.0.0.1:2193' });
      const cards = within(screen.getByRole('region', { name: 'Members' })).getAllByRole('article');
      expect(cards[0]).toHaveAccessibleName('127.0.0.1:2193');
      expect(cards[0]).toHaveAttribute('aria-current', 'true');
      expect(within(cards[0]!).getByText(/: no answer/)).toBeInTheDocument();
      expect(scrolledTo).toEqual([cards[0]]);
      unmount();
    } finally {
      Reflect.deleteProperty(Element.prototype, 'scrollIntoView');
    }

    show(healthy(), { selected: '127.0.0.1:9999' });
    expect(screen.getByRole('note')).toHaveTextContent('not a member 127.0.0.1:9999 is not in this ensemble’s configuration.');
  });
});

describe('quorum and alerts', () => {
  it('put the quorum in one sentence', () => {
    show(healthy());
    const quorum = screen.getByRole('status', { name: 'Quorum' });
    expect(quorum).toHaveTextContent('healthy');
    expect(within(quorum).getByText('3 of 3 voters serving; tolerates 1 failure')).toBeInTheDocument();
    expect(screen.getByText('No alerts.')).toBeInTheDocument();
  });

  it('at the edge, the banner says what to do and the list says which member is down', () => {
    show(oneDown());
    const quorum = screen.getByRole('status', { name: 'Quorum' });
    expect(quorum.querySelector('.quorum__word')).toHaveTextContent('at the edge');
    expect(within(quorum).getByText('2 of 3 voters serving; tolerates 1 failure, none left now')).toBeInTheDocument();
    expect(quorum).toHaveTextContent('What to do Do not restart or take down any voter until the missing ones serve again.');
    const alerts = screen.getByRole('region', { name: 'Alerts' });
    // The quorum's own alert is said once, in the banner.
    expect(within(alerts).queryByRole('article', { name: /At the edge/ })).toBeNull();
    const down = within(alerts).getByRole('article', { name: 'member 3 (127.0.0.1:2193) is down: connection refused' });
    expect(down).toHaveTextContent('Nothing listens on its client port: the ZooKeeper process is not running.');
    expect(down).toHaveTextContent('What to do Start it and check its log');
  });

  it('keep a dismissed alert one click away', async () => {
    const user = userEvent.setup();
    show(oneDown());
    const alerts = screen.getByRole('region', { name: 'Alerts' });
    await user.click(within(alerts).getByRole('button', { name: 'Dismiss: member 3 (127.0.0.1:2193) is down: connection refused' }));
    expect(within(alerts).queryByRole('article', { name: /is down/ })).toBeNull();
    expect(alerts).toHaveTextContent('1 dismissed for this session');
    await user.click(within(alerts).getByRole('button', { name: 'restore all' }));
    expect(within(alerts).getByRole('article', { name: /is down/ })).toBeInTheDocument();
  });

  it('a request herd is not "healthy · No alerts": the banner says herd and the alert links to the Sessions view', () => {
    const h = healthy();
    const herd: Alert = {
      id: 'request-herd',
      severity: 'warning',
      title: 'Request herd: 75 sessions from 1 host send 393 req/s together, mostly getChildren, likely on /herd/available',
      why: '75 sessions send requests at similar rates (3.8–4.2 req/s each).',
      action: 'Back off with deadlines.',
      members: [],
      see: { view: 'sessions', label: 'Sessions, busiest first' },
      asOf: T0 - 20_000,
    };
    show({ ...h, alerts: [herd] });
    const quorum = screen.getByRole('status', { name: 'Quorum' });
    expect(quorum.querySelector('.quorum__word')).toHaveTextContent('request herd');
    expect(quorum).toHaveClass('tone-degraded');
    expect(screen.queryByText('No alerts.')).toBeNull();
    const alert = within(screen.getByRole('region', { name: 'Alerts' })).getByRole('article', { name: herd.title });
    expect(within(alert).getByRole('link', { name: 'Sessions, busiest first →' })).toHaveAttribute('href', '/ensembles/default/sessions');
    expect(alert).toHaveTextContent('seen in the sessions gathering 24 s ago');
  });

  it('the event timeline narrates a leader change, newest first, with times said to be observations', async () => {
    const at = (s: number) => T0 - 60_000 + s * 1_000;
    const events: EnsembleEvent[] = [
      {
        seq: 1,
        at: at(0),
        kind: 'watching',
        text: 'Keeper started watching: member 3 (127.0.0.1:2193) leads, epoch 1',
        severity: 'info',
        member: '127.0.0.1:2193',
      },
      {
        seq: 2,
        at: at(2),
        kind: 'leader-lost',
        text: 'leader 3 (127.0.0.1:2193) lost: now down (connection refused)',
        severity: 'warning',
        member: '127.0.0.1:2193',
      },
      {
        seq: 3,
        at: at(4),
        kind: 'leader-elected',
        text: 'member 2 (127.0.0.1:2192) elected leader, epoch 1→2; no leader seen for 2 s after leader 3 (127.0.0.1:2193) was lost',
        severity: 'info',
        member: '127.0.0.1:2192',
        epochFrom: 1,
        epochTo: 2,
        lostAt: at(2),
      },
      ...Array.from({ length: 11 }, (_, i): EnsembleEvent => ({
        seq: 4 + i,
        at: at(10 + i),
        kind: 'alert-raised',
        text: `alert raised: a${i}`,
        severity: 'warning',
        member: null,
      })),
    ];
    show(healthy(), { events });
    const timeline = screen.getByRole('region', { name: 'Ensemble events' });
    expect(timeline).toHaveTextContent("Times are when Keeper's member poller observed each change");
    const rows = () => within(timeline).getAllByRole('listitem');
    expect(rows()).toHaveLength(10);
    expect(rows()[0]).toHaveTextContent('alert raised: a10');
    await userEvent.setup().click(within(timeline).getByRole('button', { name: 'show all 14 (last 24 h)' }));
    const all = rows();
    expect(all).toHaveLength(14);
    expect(all[11]).toHaveTextContent(/^\d\d:\d\d:\d\dleaderMember 2 \(127\.0\.0\.1:2192\) elected leader, epoch 1→2/i);
    expect(all[12]).toHaveTextContent('leader lostleader 3 (127.0.0.1:2193) lost: now down (connection refused)');
    expect(all[12]).toHaveClass('tone-lost');
    expect(within(all[12]!).getByRole('time')).toHaveAttribute('title', expect.stringMatching(/^observed /));
  });

  it('say what they wait for before the first poll', () => {
    show(undefined, { freshness: { live: false, asOf: null, reason: 'waiting for the first poll of the members' } });
    expect(screen.getByText('Nothing to show yet — waiting for the first poll of the members.')).toBeInTheDocument();
  });
});
