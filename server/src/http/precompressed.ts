/**
 * Files the web build compressed ahead of time (web/vite.config.ts writes `x.br` at brotli's
 * highest quality and `x.gz` at gzip's, beside each text file): a browser that accepts one gets it
 * as is, with the original's type, so no request pays for compressing and every browser gets the
 * smallest file there is. Anything without such a file falls through to the next handler
 * (express.static, behind the `compression` middleware).
 */
import { existsSync, statSync } from 'node:fs';
import { extname, resolve, sep } from 'node:path';
import type { Request, Response } from 'express';

const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/** The precompressed file for `file` this request accepts, or null. `file` must already be inside the served directory. */
function pick(req: Request, file: string): { encoding: string; path: string } | null {
  if (req.method !== 'GET' && req.method !== 'HEAD') return null;
  for (const { name, suffix } of ENCODINGS) {
    if (req.acceptsEncodings(name) !== name) continue;
    const path = file + suffix;
    if (existsSync(path) && statSync(path).isFile()) return { encoding: name, path };
  }
  return null;
}

/**
 * Sends `file` precompressed when the request accepts an encoding it was compressed in; false
 * (nothing sent) otherwise. `cacheControl` is the header the original would have had.
 */
export function sendPrecompressed(req: Request, res: Response, file: string, cacheControl: string): boolean {
  const found = pick(req, file);
  res.vary('Accept-Encoding');
  if (!found) return false;
  res.setHeader('Content-Encoding', found.encoding);
  res.setHeader('Cache-Control', cacheControl);
  // The original's type: send() keeps a Content-Type already set rather than naming the .br file's.
  res.type(extname(file));
  res.sendFile(found.path, { cacheControl: false, dotfiles: 'deny' });
  return true;
}

/** The file a URL path names under `root`, or null when it would leave it (or is not a path at all). */
export function fileUnder(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const base = resolve(root);
  const file = resolve(base, `.${decoded}`);
  return file.startsWith(base + sep) ? file : null;
}
