import { describe, expect, it } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { TOPIC_NAMES } from '@keeper/shared';
import { applyServerEvents } from './socket/applyServerEvents';
import { bindingOf, installBindings, type TopicBindings } from './socket/topicRegistry';
import { TOPIC_BINDINGS } from './topicBindings';
import { upgradeQueryKey, type UpgradeEntry } from './features/upgrades/upgradeTopic';

describe('topic bindings', () => {
  it('has one binding per topic, under its own name', () => {
    expect(Object.keys(TOPIC_BINDINGS).sort()).toEqual([...TOPIC_NAMES].sort());
    for (const name of TOPIC_NAMES) expect(TOPIC_BINDINGS[name].topic).toBe(name);
  });

  it('makes a topic without a binding a compile error, not a dropped event', () => {
    const { lock: _lock, ...withoutLock } = TOPIC_BINDINGS;
    // @ts-expect-error the `lock` topic has no binding
    const incomplete: TopicBindings = withoutLock;
    // @ts-expect-error a binding filed under another topic's name
    const misfiled: TopicBindings = { ...TOPIC_BINDINGS, lock: TOPIC_BINDINGS.locks };
    expect([incomplete, misfiled]).toHaveLength(2);
  });

  it('routes an event through the installed binding into the entry its hook reads', () => {
    installBindings(TOPIC_BINDINGS);
    expect(bindingOf('upgrade')).toBe(TOPIC_BINDINGS.upgrade);
    const client = new QueryClient();
    applyServerEvents(client, [{ topic: 'upgrade', ensemble: 'prod', params: {}, event: { kind: 'upgrade', upgrade: null, at: 5 } }], { epoch: 3, now: 9 });
    expect(client.getQueryData<UpgradeEntry>(upgradeQueryKey('prod'))).toEqual({ kind: 'upgrade', upgrade: null, at: 5, receivedAt: 9, epoch: 3 });
  });
});
