/** The log redacts credentials wherever the server's own objects carry them. */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';

describe('createLogger', () => {
  it('redacts ZooKeeper credentials, tokens, passwords and auth headers', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    const ensemble = { name: 'prod', connectionString: 'zk1:2181', auth: [{ scheme: 'digest', credential: 'ops:zk-secret' }] };
    log.info({ ensemble }, 'configured');
    log.info({ auth: ensemble.auth, credential: 'ops:zk-secret' }, 'adding auth');
    log.info({ options: { adminToken: 'tok-admin', viewerToken: 'tok-viewer', password: 'pw-1', csrfToken: 'csrf-1' } }, 'options');
    log.info({ req: { headers: { authorization: 'Bearer tok-admin', cookie: 'keeper_session=sess-1', 'x-csrf-token': 'csrf-1' } } }, 'request');
    const text = lines.join('');
    for (const secret of ['zk-secret', 'tok-admin', 'tok-viewer', 'pw-1', 'csrf-1', 'sess-1']) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
    // What is not secret still reads well.
    expect(text).toContain('zk1:2181');
  });
});
