/**
 * What a bench hands back: the figures it printed and the rows of the summary table.
 * Performance is a ratio against a raw client measured in the same run; the target is
 * reported beside it, never turned into a pass/fail.
 */
export interface SummaryRow {
  measure: string;
  keeper: string;
  baseline: string;
  /** keeper / baseline (for fan-out: 100 browsers / 1 browser). */
  ratio: number;
  target: string;
  withinTarget: boolean;
}

export interface BenchResult {
  bench: string;
  title: string;
  /** The figures, one per line, printed as is. */
  lines: string[];
  rows: SummaryRow[];
  /** Anything surprising the run noticed (correctness misses, skew, ...). */
  notes: string[];
  /** The ensemble's version, as srvr tells it. */
  zookeeperVersion: string;
}

export function ratioText(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a';
}

/** The summary table; with `bench` names it gets a first column saying which bench. */
export function markdownTable(rows: readonly (SummaryRow & { bench?: string })[]): string {
  const withBench = rows.some((r) => r.bench !== undefined);
  const head = [...(withBench ? ['Bench'] : []), 'Measure', 'Keeper', 'Baseline', 'Ratio', 'Target', 'Within target'];
  const body = rows.map((r) => [
    ...(withBench ? [r.bench ?? ''] : []),
    r.measure,
    r.keeper,
    r.baseline,
    ratioText(r.ratio),
    r.target,
    r.withinTarget ? 'yes' : 'no',
  ]);
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...body.map(line)].join('\n');
}

export function printResult(result: BenchResult): void {
  const out = [`## ${result.title}`, '', ...result.lines, '', markdownTable(result.rows)];
  if (result.notes.length > 0) out.push('', ...result.notes.map((n) => `Note: ${n}`));
  process.stdout.write(`${out.join('\n')}\n\n`);
}
