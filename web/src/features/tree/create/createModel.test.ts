import { describe, expect, it } from 'vitest';
import { checkChildName, modeInfo, previewPath } from './createModel';

describe('checkChildName', () => {
  it('makes the child path', () => {
    expect(checkChildName('/app', 'workers')).toEqual({ ok: true, path: '/app/workers' });
    expect(checkChildName('/', 'app')).toEqual({ ok: true, path: '/app' });
    expect(checkChildName('/app', 'odd name %?#')).toEqual({ ok: true, path: '/app/odd name %?#' });
  });

  it('refuses what would surprise', () => {
    expect(checkChildName('/app', '')).toMatchObject({ ok: false });
    expect(checkChildName('/app', 'a/b')).toMatchObject({ ok: false, reason: expect.stringMatching(/one level at a time/) });
    expect(checkChildName('/app', ' x')).toMatchObject({ ok: false, reason: expect.stringMatching(/space/) });
    expect(checkChildName('/app', '..')).toMatchObject({ ok: false });
    expect(checkChildName('/', 'zookeeper')).toMatchObject({ ok: false, reason: expect.stringMatching(/ZooKeeper itself/) });
  });
});

describe('modes', () => {
  it('previews sequential names', () => {
    expect(previewPath('/locks', 'lock-', 'persistent_sequential')).toEqual({ path: '/locks/lock-', counter: true });
    expect(previewPath('/locks', 'x', 'persistent')).toEqual({ path: '/locks/x', counter: false });
    expect(modeInfo('ephemeral').ephemeral).toBe(true);
  });
});
