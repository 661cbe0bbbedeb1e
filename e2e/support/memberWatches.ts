/**
 * What the e2e ensemble's members themselves say about watches, read with four-letter words on
 * every member: `wchp` (the data watches by path: getData and exists, so a missing znode watched
 * for its creation is counted too) and `mntr`'s zk_watch_count (data and child watches).
 */
import { fourLetterWord } from '../../scripts/sandbox/fourLetterWord.js';
import { parseWchp } from '../../shared/src/ensemble/parse/watches.js';
import { E2E_HOSTS } from './ensemble.js';

const MEMBERS = E2E_HOSTS.split(',').map((hostPort) => {
  const [host, port] = hostPort.split(':');
  return { host: host!, port: Number(port) };
});

/** Every path under `root` (itself included) that any member holds a data watch on. */
export async function watchedPathsUnder(root: string): Promise<string[]> {
  const answers = await Promise.all(MEMBERS.map((m) => fourLetterWord(m.host, m.port, 'wchp', 5_000)));
  const paths = new Set<string>();
  for (const answer of answers) {
    for (const path of parseWchp(answer).keys()) if (path === root || path.startsWith(`${root}/`)) paths.add(path);
  }
  return [...paths].sort();
}

/** zk_watch_count summed over every member. */
export async function totalWatchCount(): Promise<number> {
  const answers = await Promise.all(MEMBERS.map((m) => fourLetterWord(m.host, m.port, 'mntr', 5_000)));
  return answers.reduce((sum, answer) => {
    const count = /^zk_watch_count\s+(\d+)/m.exec(answer)?.[1];
    if (count === undefined) throw new Error(`mntr without zk_watch_count: ${answer.slice(0, 200)}`);
    return sum + Number(count);
  }, 0);
}
