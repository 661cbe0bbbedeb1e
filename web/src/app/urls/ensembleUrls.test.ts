import { describe, expect, it } from 'vitest';
import { memberUrl, membersUrl, resizeUrl } from './ensembleUrls';
import { sessionUrl } from './sessionUrls';

describe('ensemble urls', () => {
  it('keeps member addresses readable', () => {
    expect(membersUrl('prod eu')).toBe('/ensembles/prod%20eu/members');
    expect(memberUrl('default', '127.0.0.1:2192')).toBe('/ensembles/default/members/127.0.0.1:2192');
    expect(memberUrl('default', 'zk/1:2181')).toBe('/ensembles/default/members/zk%2F1:2181');
    expect(resizeUrl('prod eu')).toBe('/ensembles/prod%20eu/members/resize');
    expect(resizeUrl('default', '0c1d2e3f-aaaa-bbbb-cccc-000000000000')).toBe('/ensembles/default/members/resize/0c1d2e3f-aaaa-bbbb-cccc-000000000000');
  });
  it('puts session ids in the url as ZooKeeper prints them', () => {
    expect(sessionUrl('default', '0x1000a3b52c40001')).toBe('/ensembles/default/sessions/0x1000a3b52c40001');
  });
});
