/**
 * A member's build in the words an operator reads: ZooKeeper's version string is long
 * (`3.8.0-${mvngit.commit.id}, built on 2023-10-30 18:33 UTC` on Debian), and two builds of one
 * release differ only in their date, so a sentence names the release and the date.
 */

/** Whether the version matches the target: a plain "3.8.0" or any part of the string ("built on 2024-12-29"). */
export function versionMatches(version: string | null, target: string): boolean {
  return version !== null && version.includes(target);
}

/** "3.8.0 built on 2023-10-30"; a string without a release and a date as it is. */
export function buildWords(version: string | null): string {
  if (version === null) return 'an unknown version';
  const release = /^\s*(\d[\w.]*)/.exec(version)?.[1];
  const built = /built on (\d{4}-\d{2}-\d{2})/.exec(version)?.[1];
  return release && built ? `${release} built on ${built}` : version.trim();
}

/** "runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29": whole strings when the short words would read the same. */
export function offTargetWords(version: string | null, target: string): string {
  const [runs, wanted] = buildWords(version) === buildWords(target) ? [version ?? 'an unknown version', target] : [buildWords(version), buildWords(target)];
  return `runs ${runs}, not the target ${wanted}`;
}
