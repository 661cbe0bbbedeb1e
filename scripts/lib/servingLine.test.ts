import { describe, expect, it } from 'vitest';
import { servingLine } from './servingLine';

describe('servingLine', () => {
  it('names a sandbox ensemble by its name, and says it is the sandbox', () => {
    const line = servingLine('http://127.0.0.1:8080', [{ name: 'default', connectionString: '127.0.0.1:2181,127.0.0.1:2182' }], true);
    expect(line).toBe('Keeper is serving http://127.0.0.1:8080 (ensemble default, the sandbox: 127.0.0.1:2181,127.0.0.1:2182)');
  });

  it('names each configured ensemble with its members', () => {
    const line = servingLine(
      'http://k:8080',
      [
        { name: 'prod', connectionString: 'zk1:2181' },
        { name: 'staging', connectionString: 'zk9:2181' },
      ],
      false,
    );
    expect(line).toBe('Keeper is serving http://k:8080 (ensemble prod: zk1:2181; ensemble staging: zk9:2181)');
  });
});
