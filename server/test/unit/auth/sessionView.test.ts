/** What each audience sees of the console's session: the masks, as pure functions. */
import { describe, expect, it } from 'vitest';
import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { sessionAudience, sessionFor, summaryFor, withoutFilePaths } from '../../../src/auth/sessionView.js';

const session: ConsoleSessionSnapshot = {
  state: 'connecting',
  sessionId: '0x30001d5c9330000',
  member: '10.0.0.7:2281',
  since: 1,
  timeoutMs: 30_000,
  sessionsOpened: 2,
  confirmedAt: 1,
  establishedAt: 1,
  timeline: [{ at: 1, state: 'disconnected', sessionId: '0x30001d5c9330000', member: '10.0.0.7:2281', note: 'lost connection to 10.0.0.7:2281' }],
  connection: {
    identity: [{ scheme: 'sasl', id: 'keeper@EXAMPLE.COM' }],
    identityNote: null,
    tls: 'TLS, server certificate checked against /etc/keeper/tls/ca.pem',
    sasl: 'GSSAPI as keeper@EXAMPLE.COM',
    warning: null,
    problem: { kind: 'tls', message: 'cannot read the client key file /etc/keeper/tls/keeper.key: EACCES', member: '10.0.0.7:2281', at: 1 },
    readOnly: null,
  },
};

describe('sessionView', () => {
  it('gives admins all of it', () => {
    expect(sessionFor(session, 'admin')).toBe(session);
    expect(sessionAudience('admin', null)).toBe('admin');
  });

  it('gives viewers and writers no identity and no file path, the members still', () => {
    const seen = sessionFor(session, sessionAudience('viewer', null));
    expect(seen.connection).toMatchObject({
      identity: null,
      sasl: 'GSSAPI',
      tls: 'TLS, server certificate checked against (a file on the Keeper server)',
      problem: { message: 'cannot read the client key file (a file on the Keeper server): EACCES', member: '10.0.0.7:2281' },
    });
    expect(seen.member).toBe('10.0.0.7:2281');
    expect(JSON.stringify(seen)).not.toMatch(/keeper@|\/etc\//);
  });

  it('gives a link without the ensemble views nothing of the members, the session id or who Keeper is', () => {
    const audience = sessionAudience('viewer', { ensemble: 'e', root: '/app', ensembleViews: false });
    expect(audience).toBe('subtreeLink');
    const seen = summaryFor({ name: 'e', connectionString: '10.0.0.7:2281,10.0.0.8:2281', session }, audience);
    expect(seen.connectionString).toBe('');
    expect(JSON.stringify(seen)).not.toMatch(/10\.0\.0\.|0x3000|keeper@|\/etc\//);
    expect(seen.session).toMatchObject({ state: 'connecting', sessionId: null, member: null, since: 1 });
  });

  it('leaves znode-like words alone when they are not paths of two segments', () => {
    expect(withoutFilePaths('watching /app')).toBe('watching /app');
    expect(withoutFilePaths('no such file /var/lib/keeper/state.json')).toBe('no such file (a file on the Keeper server)');
  });
});
