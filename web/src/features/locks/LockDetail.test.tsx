// @vitest-environment jsdom
/**
 * One lock's detail as an operator reads it, from fixtures analyzeLock builds (kazoo #732, a
 * persistent holder, 100,000 contenders): each status word, flags with their sentence, the chain
 * text, the consequence, owner sessions linking to the sessions view, the "first N of M" line,
 * and the admin's Delete: none for a viewer, a confirmation for a leaked node, the typed name for
 * a holder, and the API's refusals in words.
 */
import '../../testSupport/dom';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { shortName, type LockReport } from '@keeper/shared';
import type { Freshness } from '../../app/freshness/freshness';
import { A, B, bigLock, C, JOB, jobLock, lockResponse, NOW, P0, persistentLock } from './fixtures';
import { HOLDER_CONSEQUENCE } from './DeleteContenderDialog';
import { LockDetail } from './LockDetail';
import type { LockEntry } from './locksTopic';
import { withDialogs } from '../../testSupport/dialogs';

withDialogs();

const LIVE: Freshness = { live: true };

let requests: { url: string; body: unknown }[] = [];
let answer: (url: string, body: unknown) => Response = () => Response.json({});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
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

function show(lock: LockReport | LockEntry, { admin = false, freshness = LIVE }: { admin?: boolean; freshness?: Freshness } = {}) {
  const entry: LockEntry = 'kind' in lock ? lock : { kind: 'lock', lock: lockResponse(lock), epoch: 1 };
  const path = 'kind' in lock ? '/gone' : lock.path;
  return render(
    // Writes go through TanStack Query's useMutation, as in the app.
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>
        <LockDetail ensemble="default" path={path} entry={entry} freshness={freshness} admin={admin} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

function rows(): HTMLTableRowElement[] {
  const table = screen.getByRole('table', { name: 'Contenders' });
  return within(within(table).getAllByRole('rowgroup')[1]!)
    .getAllByRole<HTMLTableRowElement>('row')
    .filter((r) => r.classList.contains('contender'));
}

function row(name: string): HTMLTableRowElement {
  const found = rows().find((r) => within(r).queryByTitle(name) !== null);
  if (!found) throw new Error(`no row for ${name}`);
  return found;
}

const statusOf = (r: HTMLElement) => r.querySelector('[data-status]')?.textContent;

describe('a lock’s contenders', () => {
  it('come in order with position, short name, role, status word, owner and how long', () => {
    show(jobLock());
    expect(rows().map((r) => [r.cells[0]!.textContent, r.cells[1]!.textContent, statusOf(r)])).toEqual([
      ['1', shortName(A), 'holder'],
      ['2', shortName(B), 'leaked'],
      ['3', shortName(C), 'waiting'],
    ]);
    // Every node of an exclusive lock is a plain contender: no Role column to say so.
    expect(screen.queryByRole('columnheader', { name: 'Role' })).toBeNull();
    const holder = row(A);
    expect(within(holder).getByRole('link', { name: '0xa' })).toHaveAttribute('href', '/ensembles/default/sessions/0xa');
    expect(holder).toHaveTextContent('15 min');
    expect(holder).toHaveTextContent('worker-1');
    expect(holder).toHaveTextContent('held 5 min');
    expect(row(C)).toHaveTextContent('waiting 20 s');
    expect(screen.getByText('Recipe').nextElementSibling).toHaveTextContent(jobLock().recipe.label);
  });

  it('draw the chain as words, per waiter and for the lock, and state the consequence under a leaked row', async () => {
    show(jobLock());
    const chain = `${shortName(C)} waits for ${shortName(B)} (leaked) waits for ${shortName(A)} (holder)`;
    expect(screen.getByLabelText('Wait chain')).toHaveTextContent(`Chain ${chain}`);
    // Each waiter's row points at what it waits for directly (by its place), with its whole chain on hover and once opened.
    expect(within(row(C)).getByText('→ #2')).toHaveAttribute('title', chain);
    // A leaked waiter is tagged at the head of its own chain too (issue 22, item 10).
    expect(within(row(B)).getByText('→ #1')).toHaveAttribute('title', `${shortName(B)} (leaked) waits for ${shortName(A)} (holder)`);
    await userEvent.setup().click(row(C).cells[0]!);
    expect(row(C).nextElementSibling).toHaveTextContent(chain);
    const under = row(B).nextElementSibling as HTMLElement;
    expect(under).toHaveTextContent(/^When the holder releases, this leaked node becomes the holder and the lock deadlocks/);
  });

  it('show each flag with its sentence on hover, and in full once the row is opened with Enter', async () => {
    const user = userEvent.setup();
    show(jobLock());
    const flag = within(row(A)).getByText('long timeout');
    expect(flag).toHaveAttribute('title', expect.stringMatching(/^Its owner's session timeout is 15 min/));
    row(A).focus();
    await user.keyboard('{Enter}');
    expect(row(A)).toHaveAttribute('aria-expanded', 'true');
    expect((row(A).nextElementSibling as HTMLElement).textContent).toContain('if its owner died, this hold lasts up to 15 min more');
    expect(row(A).nextElementSibling).toHaveTextContent(`${JOB}/${A}`);
  });

  it('show a persistent node without an owner, and what it means', () => {
    show(persistentLock());
    expect(rows().map(statusOf)).toEqual(['persistent', 'waiting']);
    expect(row(P0)).toHaveTextContent('none (persistent)');
    expect(row(P0).nextElementSibling).toHaveTextContent("It holds the lock and no session's end removes it");
    expect(screen.getByLabelText('Wait chain')).toHaveTextContent('(holder, persistent)');
  });

  it('count a 100,000-node directory and say how many are shown', () => {
    show(bigLock());
    expect(screen.getByText('showing the first 50 of 100,000 contenders (the counts cover all of them)')).toBeInTheDocument();
    expect(screen.getByText('Waiters').nextElementSibling).toHaveTextContent('99,999');
    expect(rows()).toHaveLength(50);
  });

  it('say when the directory is not a lock (any more)', () => {
    show({ kind: 'notLock', path: '/gone', message: '/gone does not exist.', at: NOW, epoch: 1 });
    expect(screen.getByText('Not a lock')).toBeInTheDocument();
    expect(screen.getByText('/gone does not exist.')).toBeInTheDocument();
  });

  it('say "as of" when the data is not live, and keep the words as they were', () => {
    show(jobLock(), { freshness: { live: false, asOf: NOW - 5_000, label: 'unconfirmed since', reason: 'ZooKeeper member h:1 is not answering the console' } });
    expect(screen.getByRole('note')).toHaveTextContent(/^unconfirmed since \d\d:\d\d:\d\d/);
    expect(rows().map(statusOf)).toEqual(['holder', 'leaked', 'waiting']);
  });
});

describe('deleting a contender', () => {
  it('offers a viewer no write control', () => {
    show(jobLock());
    expect(screen.queryAllByRole('button')).toEqual([]);
  });

  it('offers an admin Delete on leaked, persistent and holding rows only', () => {
    show(jobLock(), { admin: true });
    expect(rows().map((r) => within(r).queryByRole('button') !== null)).toEqual([true, true, false]);
  });

  it('deletes a leaked node after one confirmation, sending the owner and version it was seen with', async () => {
    const user = userEvent.setup();
    answer = () => Response.json({ path: `${JOB}/${B}`, lock: JOB, deleted: true, wasHolder: false, status: 'leaked' });
    show(jobLock(), { admin: true });
    await user.click(within(row(B)).getByRole('button', { name: `Delete ${B}` }));
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).queryByRole('textbox')).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(requests).toEqual([{ url: '/api/ensembles/default/locks/delete', body: { path: `${JOB}/${B}`, owner: '0xb', version: 0 } }]);
  });

  it('says LOCK_CHANGED in words and deletes nothing', async () => {
    const user = userEvent.setup();
    answer = () => Response.json({ error: { code: 'LOCK_CHANGED', message: 'changed' } }, { status: 409 });
    show(jobLock(), { admin: true });
    await user.click(within(row(B)).getByRole('button', { name: `Delete ${B}` }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      /Not deleted.*It changed since you looked \(another node, owner or version\): nothing was deleted/,
    );
  });

  it('turns a LOCK_HOLDER refusal into the typed confirmation', async () => {
    const user = userEvent.setup();
    answer = () => Response.json({ error: { code: 'LOCK_HOLDER', message: 'holds' } }, { status: 409 });
    show(jobLock(), { admin: true });
    await user.click(within(row(B)).getByRole('button', { name: `Delete ${B}` }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/It holds the lock now: nothing was deleted/);
    expect(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete the holder' })).toBeDisabled();
  });

  it('needs the holder’s name typed, after stating the consequence, and sends it as confirmHolder', async () => {
    const user = userEvent.setup();
    answer = () => Response.json({ path: `${JOB}/${A}`, lock: JOB, deleted: true, wasHolder: true, status: 'holder' });
    show(jobLock(), { admin: true });
    await user.click(within(row(A)).getByRole('button', { name: `Delete ${A}` }));
    const dialog = screen.getByRole('dialog');
    expect(dialog).toHaveTextContent(HOLDER_CONSEQUENCE);
    expect(HOLDER_CONSEQUENCE).toBe('the next waiter enters while the old owner still believes it holds the lock');
    const submit = within(dialog).getByRole('button', { name: 'Delete the holder' });
    expect(submit).toBeDisabled();
    const input = within(dialog).getByRole('textbox', { name: `Type ${A} to confirm` });
    await user.type(input, A.slice(0, -1));
    expect(submit).toBeDisabled();
    await user.click(submit);
    expect(requests).toEqual([]);
    await user.type(input, A.slice(-1));
    expect(submit).toBeEnabled();
    await user.click(submit);
    expect(requests).toEqual([{ url: '/api/ensembles/default/locks/delete', body: { path: `${JOB}/${A}`, owner: '0xa', version: 0, confirmHolder: A } }]);
  });

  it('needs the typed name for a persistent node in the holding position too', async () => {
    const user = userEvent.setup();
    show(persistentLock(), { admin: true });
    await user.click(within(row(P0)).getByRole('button', { name: `Delete ${P0}` }));
    expect(within(screen.getByRole('dialog')).getByRole('textbox', { name: `Type ${P0} to confirm` })).toBeInTheDocument();
  });
});
