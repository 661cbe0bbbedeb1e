/**
 * ~15 minutes of samples per member for the charts: old points fall out by age, and a
 * hard cap bounds memory whatever the poll interval.
 */
import type { HistoryPoint, MemberHistory } from '@keeper/shared';

export class HistoryRing {
  private readonly points = new Map<string, HistoryPoint[]>();

  constructor(
    private readonly keepMs: number,
    private readonly maxPoints: number,
  ) {}

  add(address: string, point: HistoryPoint): void {
    const list = this.points.get(address) ?? [];
    list.push(point);
    const oldest = point.at - this.keepMs;
    let drop = 0;
    while (drop < list.length && list[drop]!.at < oldest) drop++;
    drop = Math.max(drop, list.length - this.maxPoints);
    if (drop > 0) list.splice(0, drop);
    this.points.set(address, list);
  }

  /** Drops members no longer polled. */
  retain(addresses: ReadonlySet<string>): void {
    for (const address of this.points.keys()) if (!addresses.has(address)) this.points.delete(address);
  }

  snapshot(): MemberHistory {
    return Object.fromEntries([...this.points].map(([address, list]) => [address, list.slice()]));
  }
}
