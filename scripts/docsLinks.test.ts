/**
 * The README and the manual under docs/ link to each other, to screenshots and to files of the
 * repository by relative paths. Pages and pictures move (docs/screenshots/ is written by the e2e
 * specs, a section becomes a page), and GitHub shows a broken link or a missing picture without a
 * word, so every relative link, image and `#anchor` is resolved here: a link to a file that is not
 * there, or to a heading a page no longer has, fails with "file: link" for each one. External
 * http(s) links are not fetched (a test must not depend on the network). The README is the front
 * door: kept short enough to read in five minutes.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');
const README_MAX_BYTES = 20_000;

/** README.md and every Markdown file under docs/, as repository-relative paths. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(REPO, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs.sort()];
}

/**
 * The text with code taken out: a fenced block or an inline code span may hold `[x](y)` or
 * `# x` that is not a link or a heading (JSON, shell, TypeScript). Fences become empty lines so
 * line structure stays; inline code becomes a placeholder, since a link's label may be code.
 */
function withoutCode(text: string): string {
  const lines = text.split('\n');
  let fence: string | null = null;
  const kept = lines.map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      return '';
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      return '';
    }
    return line.replace(/`[^`\n]+`/g, 'code');
  });
  return kept.join('\n');
}

/** Every link target of a page: inline links and images, reference definitions, <img src> and <a href>. */
function linkTargets(text: string): string[] {
  const body = withoutCode(text);
  const targets: string[] = [];
  for (const m of body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)) targets.push(m[1]!);
  for (const m of body.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(m[1]!);
  for (const m of body.matchAll(/<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)) targets.push(m[1]!);
  return targets;
}

/**
 * GitHub's anchor for a heading: its text as rendered (a link's label, code without backticks),
 * lower case, punctuation other than '-' and '_' dropped, each space a '-'; a repeated heading
 * gets -1, -2, ... Explicit <a name> / id anchors count too.
 */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCodeKeepingHeadings(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const rendered = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[*`]/g, '');
    const slug = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const m of text.matchAll(/<[a-z]+\b[^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) anchors.add(m[1]!);
  return anchors;
}

/** The page's lines outside fenced blocks, with inline code kept (a heading's slug keeps its text). */
function withoutCodeKeepingHeadings(text: string): string[] {
  let fence: string | null = null;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
    } else out.push(line);
  }
  return out;
}

/** What is wrong with one link of `file`, or null when it resolves. */
function problemOf(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // http(s), mailto: not fetched
  const hash = target.indexOf('#');
  const pathPart = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const decoded = decodeURIComponent(pathPart);
  const absolute = pathPart === '' ? join(REPO, file) : decoded.startsWith('/') ? join(REPO, decoded) : resolve(REPO, dirname(file), decoded);
  if (!existsSync(absolute)) return 'no such file';
  if (anchor === null || anchor === '' || !absolute.endsWith('.md') || statSync(absolute).isDirectory()) return null;
  return anchorsOf(readFileSync(absolute, 'utf8')).has(anchor) ? null : `no heading #${anchor} in ${relative(REPO, absolute)}`;
}

describe('the README and docs/', () => {
  const files = markdownFiles();

  it('finds the pages it checks', () => {
    expect(files).toContain('README.md');
    expect(files).toContain(join('docs', 'operating', 'configuration.md'));
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const target of linkTargets(readFileSync(join(REPO, file), 'utf8'))) {
        const problem = problemOf(file, target);
        if (problem !== null) broken.push(`${file}: ${target} (${problem})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it(`keep the README under ${README_MAX_BYTES.toLocaleString('en')} bytes`, () => {
    expect(statSync(join(REPO, 'README.md')).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });
});

describe('GitHub-style anchors', () => {
  it('follow GitHub: lower case, punctuation dropped, spaces to dashes, repeats numbered', () => {
    const anchors = anchorsOf('# The benchmark (`bench/reconfig.ts`)\n## Four kinds of "session"\n## Tests\n## Tests\n```\n# not a heading\n```\n');
    expect([...anchors]).toEqual(['the-benchmark-benchreconfigts', 'four-kinds-of-session', 'tests', 'tests-1']);
  });

  it('finds links in text, not in code', () => {
    expect(linkTargets('See [a](a.md#x) and ![b](b.png).\n```\n[c](c.md)\n```\n`[d](d.md)` <img src="e.png">')).toEqual(['a.md#x', 'b.png', 'e.png']);
  });
});
