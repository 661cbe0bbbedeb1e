/**
 * ZooKeeper version strings: "3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC" is
 * literally what Debian's build prints, "3.4.14-4c25d480..., built on 03/06/2019" older ones.
 * Only the x.y.z part says which release a member runs.
 */

/** "3.8.0" from any of the forms above; null when there is no x.y.z at the start. */
export function versionCore(version: string | null | undefined): string | null {
  if (!version) return null;
  return /^\s*(\d+\.\d+\.\d+)/.exec(version)?.[1] ?? null;
}

/** Numeric x.y.z order: negative when a < b. */
export function compareVersionCores(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
