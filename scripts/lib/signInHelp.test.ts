import { describe, expect, it } from 'vitest';
import { signInLines } from './signInHelp';

const url = 'http://127.0.0.1:8080';
const none = { url, adminToken: false, viewerToken: false, users: 0, generatedToken: null };

describe('signInLines', () => {
  it('names the variables of the tokens set, the sign-in page and the bearer header, never a token', () => {
    const text = signInLines({ ...none, adminToken: true, viewerToken: true }).join('\n');
    expect(text).toContain(`${url}/login`);
    expect(text).toMatch(/admin \(reads and writes\)\s+KEEPER_ADMIN_TOKEN/);
    expect(text).toMatch(/viewer \(reads only\)\s+KEEPER_VIEWER_TOKEN/);
    expect(text).toContain(`"${url}/?token=$KEEPER_ADMIN_TOKEN"`);
    expect(text).toContain('Authorization: Bearer $KEEPER_ADMIN_TOKEN');
  });

  it('with only a viewer token, offers that one', () => {
    const text = signInLines({ ...none, viewerToken: true }).join('\n');
    expect(text).not.toContain('KEEPER_ADMIN_TOKEN');
    expect(text).toContain('?token=$KEEPER_VIEWER_TOKEN');
  });

  it('says where users of the config file sign in', () => {
    expect(signInLines({ ...none, users: 2 })).toEqual([`To sign in, open ${url}/login with a name and password (2 users of the config file).`]);
    expect(signInLines({ ...none, adminToken: true, users: 1 }).at(-1)).toBe(
      `Users sign in at ${url}/login with a name and password (1 user of the config file).`,
    );
  });

  it('prints a generated token in its URL, since only this machine knows it', () => {
    expect(signInLines({ ...none, generatedToken: 'abc' })).toEqual([
      'To sign in, open this URL (it holds the admin token: do not share it):',
      `    ${url}/?token=abc`,
    ]);
  });
});
