/**
 * ZooKeeper path rules, the same ones the server enforces (PathUtils.validatePath),
 * so a bad path is refused before it costs the ensemble a round trip.
 */

export type PathCheck = { ok: true; path: string } | { ok: false; reason: string };

// Characters ZooKeeper 3.8 refuses anywhere in a path (PathUtils.validatePath: limits included).
function isForbiddenChar(code: number): boolean {
  return (
    code === 0 || (code > 0x00 && code <= 0x1f) || (code >= 0x7f && code <= 0x9f) || (code >= 0xd800 && code <= 0xf8ff) || (code >= 0xfff0 && code <= 0xffff)
  );
}

export function checkPath(path: string): PathCheck {
  if (path.length === 0) return { ok: false, reason: 'path is empty' };
  if (!path.startsWith('/')) return { ok: false, reason: 'path must start with /' };
  if (path.length === 1) return { ok: true, path };
  if (path.endsWith('/')) return { ok: false, reason: 'path must not end with /' };
  const parts = path.slice(1).split('/');
  for (const part of parts) {
    if (part.length === 0) return { ok: false, reason: 'path has an empty segment (//)' };
    if (part === '.' || part === '..') return { ok: false, reason: `relative segment "${part}" is not allowed` };
  }
  for (let i = 0; i < path.length; i++) {
    const code = path.charCodeAt(i);
    if (isForbiddenChar(code)) {
      return { ok: false, reason: `invalid character \\u${code.toString(16).padStart(4, '0')} at index ${i}` };
    }
  }
  return { ok: true, path };
}

export function isValidPath(path: string): boolean {
  return checkPath(path).ok;
}

export function parentPath(path: string): string | null {
  if (path === '/') return null;
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export function baseName(path: string): string {
  return path === '/' ? '/' : path.slice(path.lastIndexOf('/') + 1);
}

export function joinPath(parent: string, child: string): string {
  return parent === '/' ? `/${child}` : `${parent}/${child}`;
}

/** Every ancestor from the root down to the path itself: /a/b -> ['/', '/a', '/a/b']. */
export function pathLineage(path: string): string[] {
  if (path === '/') return ['/'];
  const out = ['/'];
  let acc = '';
  for (const part of path.slice(1).split('/')) {
    acc += `/${part}`;
    out.push(acc);
  }
  return out;
}
