/**
 * Sizing advice in the words of the ZooKeeper FAQ and admin guide: think in terms of
 * reliability, not performance. 3 voters tolerate one failure; 5 are recommended for
 * production (one in planned maintenance plus one unexpected failure); an even count adds
 * no tolerance; every write waits for a quorum of acks, so writes slow as voters are added
 * while reads scale with members; observers add read capacity without slowing writes.
 */
import type { SizingInput, SizingReport } from './types.js';
import { canLose, hasQuorumWith, quorumSize, tolerance } from './quorum.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function notes(voters: number, observers: number): string[] {
  const out: string[] = [];
  const q = quorumSize(voters);
  if (voters === 0) {
    out.push('Without voters there is no ensemble: observers alone cannot form a quorum.');
    return out;
  }
  if (voters === 1) out.push('A single server is a coordinator with no reliability: if it fails, the service stops.');
  if (voters === 2) out.push('2 voters need both for a quorum: they tolerate no failure, and there are two machines that can break instead of one.');
  if (voters > 2 && voters % 2 === 0) {
    out.push(
      `An even number of voters adds no failure tolerance: ${voters} voters tolerate ${plural(tolerance(voters), 'failure')}, like ${voters - 1}, ` +
        `and every write waits for ${q} acks instead of ${quorumSize(voters - 1)}.`,
    );
  }
  if (voters > 1) {
    out.push(
      `Every write needs a quorum of ${q} of ${voters} voters to acknowledge it, so writes get slower as voters are added; ` +
        'reads are answered by the member a client is connected to, so they scale with members.',
    );
  }
  if (observers > 0) {
    out.push(
      `${plural(observers, 'observer')} ${observers === 1 ? 'adds' : 'add'} read capacity and client connections without slowing writes: observers do not vote, so they add no failure tolerance.`,
    );
  } else if (voters >= 5) {
    out.push('For more read capacity, add observers rather than voters: observers do not vote, so writes do not slow down.');
  }
  if (voters >= 5) {
    out.push(
      tolerance(voters) >= 2
        ? `${voters} voters survive one member in maintenance plus one unexpected failure (why the FAQ recommends 5 for production).`
        : `${voters} voters cannot take one member in maintenance plus one unexpected failure.`,
    );
  }
  return out;
}

function recommendation(voters: number, observers: number, votersDown: number): string {
  const serving = voters - votersDown;
  if (voters > 0 && !hasQuorumWith(voters, serving)) {
    const missing = quorumSize(voters) - serving;
    return `No quorum now: bring back ${plural(missing, 'voter')} (${quorumSize(voters)} of ${voters} must serve) before anything else.`;
  }
  if (voters > 2 && votersDown > 0 && canLose(voters, serving) === 0) {
    return 'At the edge: one more voter failure loses the quorum. Do not take any voter down for maintenance until the down ones are back.';
  }
  switch (voters) {
    case 0:
      return 'Configure at least 3 voters.';
    case 1:
      return 'Use 3 voters for reliability: a single server has none (the FAQ: go to 3, not 2).';
    case 2:
      return 'Use 3 voters: 2 tolerate no failure (majority voting needs both).';
    case 3:
      return observers > 0
        ? '3 voters tolerate 1 failure; the observers add reads. For production serving the FAQ recommends 5 voters: one in maintenance plus one failure.'
        : '3 voters tolerate 1 failure. For production serving the FAQ recommends 5: one member in planned maintenance plus one unexpected failure.';
    case 5:
      return '5 voters: one member in maintenance plus one unexpected failure, as the FAQ recommends. Add observers, not voters, for read capacity.';
    default:
      if (voters % 2 === 0)
        return `Use ${voters - 1} or ${voters + 1} voters (or make one an observer): the ${ordinal(voters)} voter adds no tolerance and slows writes.`;
      return `${voters} voters tolerate ${tolerance(voters)} failures, but every write waits for ${quorumSize(voters)} acks. Prefer observers for more read capacity.`;
  }
}

function ordinal(n: number): string {
  const suffix = n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

export function sizingReport(raw: SizingInput): SizingReport {
  const voters = Math.max(0, Math.floor(raw.voters));
  const observers = Math.max(0, Math.floor(raw.observers));
  const votersDown = Math.min(voters, Math.max(0, Math.floor(raw.votersDown ?? 0)));
  const hasQuorumNow = hasQuorumWith(voters, voters - votersDown);
  return {
    input: { voters, observers, votersDown },
    quorumSize: quorumSize(voters),
    tolerates: tolerance(voters),
    survivesMaintenancePlusFailure: tolerance(voters) >= 2,
    hasQuorumNow,
    canLoseNow: hasQuorumNow ? canLose(voters, voters - votersDown) : 0,
    notes: notes(voters, observers),
    recommendation: recommendation(voters, observers, votersDown),
  };
}
