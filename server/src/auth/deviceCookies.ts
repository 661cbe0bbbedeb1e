/**
 * "This browser has signed in as ann before" (OWASP's device cookies): set after a password
 * sign-in, sent back only to POST /api/login. A password tried with a valid one is limited by
 * that device alone, so a guesser at the same address, or behind the same proxy, cannot lock ann
 * out of a browser she uses. It proves nothing by itself: the password is still checked.
 *
 * The value is `<name>.<random>.<mac>`; the MAC key is kept in the state directory (mode 0600) so
 * a restart keeps the cookies valid, or made up per process in the open development mode.
 */
import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';
import { randomToken, safeEqual } from './secrets.js';

export const DEVICE_COOKIE = 'keeper_device';
export const DEVICE_KEY_FILE = 'device-key';
const MAX_AGE_SECONDS = 30 * 24 * 3600;

export class DeviceCookies {
  private constructor(private readonly key: Buffer) {}

  static open(stateDir: string | null): DeviceCookies {
    if (stateDir === null) return new DeviceCookies(randomBytes(32));
    ensureStateDir(stateDir);
    const file = path.join(stateDir, DEVICE_KEY_FILE);
    const existing = readFileIfExists(file)?.trim();
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return new DeviceCookies(Buffer.from(existing, 'base64url'));
    const key = randomToken(32);
    writeFileAtomic(file, `${key}\n`);
    return new DeviceCookies(Buffer.from(key, 'base64url'));
  }

  /** The Set-Cookie header for a browser that just signed in as `name`. */
  issue(name: string, secure: boolean): string {
    const body = `${Buffer.from(name).toString('base64url')}.${randomToken(12)}`;
    return [
      `${DEVICE_COOKIE}=${body}.${this.mac(body)}`,
      'Path=/api/login',
      'HttpOnly',
      'SameSite=Strict',
      `Max-Age=${MAX_AGE_SECONDS}`,
      ...(secure ? ['Secure'] : []),
    ].join('; ');
  }

  /** The device's own id when the cookie is genuine and was issued for `name`; else null. */
  deviceOf(value: string | null, name: string): string | null {
    if (!value) return null;
    const parts = value.split('.');
    if (parts.length !== 3) return null;
    const [who, nonce, mac] = parts as [string, string, string];
    const body = `${who}.${nonce}`;
    if (!safeEqual(mac, this.mac(body))) return null;
    return Buffer.from(who, 'base64url').toString() === name ? nonce : null;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
