/**
 * Mixed builds: members that answer with different version strings. Two builds of one release
 * ("3.8.0-…, built on 2023-10-30" and "… built on 2024-12-29", Debian's two 3.8.0 packages) carry
 * different fixes while "3.8.0" alone hides it, so the whole string is compared, during an upgrade
 * or not. Different releases keep the `mixed-versions` id; the same release built differently is
 * `mixed-builds`.
 */
import type { Alert, MemberStatus } from '../types.js';
import { versionCore } from '../version.js';

const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** "3.8.0 built on 2024-12-29 17:54 UTC" from Debian's "3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC"; the whole string otherwise. */
export function buildLabel(version: string): string {
  const text = version.trim().replace(/\s+/g, ' ');
  const built = /^(\d+\.\d+\.\d+)\S*,? built on (.+)$/.exec(text);
  return built ? `${built[1]} built on ${built[2]}` : text;
}

const memberName = (m: MemberStatus) => (m.id === null ? m.address : `member ${m.id}`);

export function buildAlerts(members: readonly MemberStatus[]): Alert[] {
  const byBuild = new Map<string, MemberStatus[]>();
  for (const m of members) {
    const build = m.metrics.version?.trim().replace(/\s+/g, ' ');
    if (build) byBuild.set(build, [...(byBuild.get(build) ?? []), m]);
  }
  if (byBuild.size < 2) return [];
  // The odd ones out first: "1 of 3 members on <the older build>".
  const groups = [...byBuild.entries()].sort((a, b) => a[1].length - b[1].length || buildLabel(a[0]).localeCompare(buildLabel(b[0])));
  const known = groups.reduce((n, [, ms]) => n + ms.length, 0);
  const unknown = members.length - known;
  const releases = new Set(groups.map(([build]) => versionCore(build) ?? build));
  const mixedReleases = releases.size > 1;
  const [first, ...rest] = groups;
  const whose = (ms: readonly MemberStatus[]) => ms.map(memberName).join(', ');
  const of = unknown > 0 ? `${known} members that answered (${unknown} did not)` : `${known} members`;
  const title =
    `${mixedReleases ? 'Mixed versions' : 'Mixed builds'}: ${first![1].length} of ${of} on ${buildLabel(first![0])} (${whose(first![1])})` +
    rest.map(([build, ms]) => `, ${ms.length} on ${buildLabel(build)} (${whose(ms)})`).join('');
  const list = groups.map(([build, ms]) => `${whose(ms)}: ${build}`).join('; ');
  return [
    {
      id: mixedReleases ? 'mixed-versions' : 'mixed-builds',
      severity: 'warning',
      title,
      why:
        `The members run ${plural(groups.length, 'different build')} (${list}). ` +
        (mixedReleases
          ? 'Expected for the length of a rolling upgrade, but an ensemble should not stay mixed: behaviour and wire formats can differ between releases.'
          : 'The release number is the same, but the builds differ (patches, packaging fixes): one member may still have a bug the others were fixed of, and "3.8.0" alone hides it.'),
      action:
        'Finish the rolling upgrade (or restart the odd member on the build the others run) one member at a time, followers first and the leader last, waiting for each to sync.',
      members: groups.flatMap(([, ms]) => ms.map((m) => m.address)),
    },
  ];
}
