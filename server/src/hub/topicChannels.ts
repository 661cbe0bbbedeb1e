/**
 * One channel per topic, ensemble, parameters and role: the topic's producer is opened once for
 * every browser subscribed to the same thing, and each event it emits is serialized once
 * (SharedEvent) and handed to every member's outbox. A browser joining later gets the current
 * state from a short second open of the producer (what it emits at once, as producers do on
 * open), then the channel's events. The channel closes its producer with its last member.
 *
 * Producers see the subscriber's role and share scope and nothing else about it, so sharing by
 * role and scope is exact: an admin's channel and a viewer's, or two share links', never share events.
 */
import { subscriptionKey, topicDeclaration, type Role, type ServerEvent, type ShareScope, type TopicName } from '@keeper/shared';
import type { Ensemble } from '../ensemble/ensemble.js';
import type { TopicProducer } from '../topics/topicProducer.js';
import { SharedEvent, envelopePrefix } from './sharedEvent.js';

export interface ChannelMember {
  /** `live`: emitted as it happened (timed for keeper_push_seconds), not a replay of the current state. */
  deliver(event: SharedEvent, live: boolean): void;
}

export interface ChannelSpec {
  topic: TopicName;
  producer: TopicProducer<TopicName>;
  ensemble: Ensemble;
  params: unknown;
  role: Role;
  /** A share link's scope: its events pass it, so only links of the same scope share the channel. */
  scope: ShareScope | null;
}

export interface Membership {
  /** Hands the member the current state again (a re-subscribe); returns the bytes serialized afresh for it. */
  replay(): number;
  leave(): void;
}

/** Last events kept per channel to recognise one emitted again unchanged. */
const RECENT_KEYS = 64;

class Channel {
  readonly members = new Set<ChannelMember>();
  private readonly prefix: string;
  private readonly known = new WeakMap<object, SharedEvent>();
  private readonly recent = new Map<string, SharedEvent>();
  private stop: (() => void) | null = null;
  private closed = false;

  constructor(
    readonly key: string,
    private readonly spec: ChannelSpec,
    private readonly onEmpty: (channel: Channel) => void,
  ) {
    this.prefix = envelopePrefix(spec.topic, spec.ensemble.name, spec.params);
  }

  /** Opens the producer with its first member; returns the bytes serialized afresh meanwhile. */
  start(first: ChannelMember): number {
    this.members.add(first);
    let fresh = 0;
    try {
      this.stop = this.open((event) => {
        if (this.closed) return;
        const { shared, created } = this.share(event);
        if (created) fresh += shared.freshBytes;
        shared.liveAt = performance.now();
        for (const member of this.members) member.deliver(shared, true);
      });
    } catch (error) {
      this.close();
      throw error;
    }
    return fresh;
  }

  /** The current state for one member: a second open, stopped at once, whose events go to it alone. */
  replay(member: ChannelMember): number {
    let fresh = 0;
    const stop = this.open((event) => {
      const { shared, created } = this.share(event);
      if (created) fresh += shared.freshBytes;
      member.deliver(shared, false);
    });
    stop();
    return fresh;
  }

  get ensembleName(): string {
    return this.spec.ensemble.name;
  }

  leave(member: ChannelMember): void {
    if (!this.members.delete(member) || this.members.size > 0) return;
    this.close();
  }

  private open(emit: (event: unknown) => void): () => void {
    const { producer, ensemble, params, role, scope } = this.spec;
    return producer.open({ ensemble, params: params as never, role, scope, emit: emit as never });
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.members.clear();
    this.stop?.();
    this.stop = null;
    this.onEmpty(this);
  }

  /** The shared form of an event: the same object, or one equal to the last of its key, is not serialized again. */
  private share(event: unknown): { shared: SharedEvent; created: boolean } {
    const object = typeof event === 'object' && event !== null ? event : null;
    const known = object ? this.known.get(object) : undefined;
    if (known) return { shared: known, created: false };
    const { topic, ensemble, params } = this.spec;
    const coalesce = topicDeclaration(topic).coalesceKey(event);
    const last = coalesce === null ? undefined : this.recent.get(coalesce);
    const reused = last !== undefined && shallowEqual(last.envelope.event, event);
    const shared = reused ? last : SharedEvent.of({ topic, ensemble: ensemble.name, params, event } as ServerEvent, this.prefix);
    if (object) this.known.set(object, shared);
    if (coalesce !== null && !reused) {
      this.recent.delete(coalesce);
      this.recent.set(coalesce, shared);
      if (this.recent.size > RECENT_KEYS) this.recent.delete(this.recent.keys().next().value as string);
    }
    return { shared, created: !reused };
  }
}

export class TopicChannels {
  private readonly channels = new Map<string, Channel>();

  get size(): number {
    return this.channels.size;
  }

  /** Subscriptions (a socket following a channel) per ensemble name, for keeper_subscriptions. */
  subscriptionsByEnsemble(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const channel of this.channels.values()) {
      counts.set(channel.ensembleName, (counts.get(channel.ensembleName) ?? 0) + channel.members.size);
    }
    return counts;
  }

  /** Joins the channel for `spec` and hands the member the current state; `freshBytes` is what was serialized afresh for it. */
  join(spec: ChannelSpec, member: ChannelMember): { membership: Membership; freshBytes: number } {
    const scope = spec.scope === null ? '' : JSON.stringify(spec.scope);
    const key = `${subscriptionKey(spec.topic, spec.ensemble.name, spec.params)}\u0000${spec.role}\u0000${scope}`;
    let channel = this.channels.get(key);
    let freshBytes: number;
    if (channel) {
      // Current state first, then the channel's events: nothing the member is sent precedes its state.
      freshBytes = channel.replay(member);
      channel.members.add(member);
    } else {
      channel = new Channel(key, spec, (c) => {
        if (this.channels.get(c.key) === c) this.channels.delete(c.key);
      });
      this.channels.set(key, channel);
      freshBytes = channel.start(member);
    }
    const joined = channel;
    let left = false;
    return {
      freshBytes,
      membership: {
        replay: () => (left ? 0 : joined.replay(member)),
        leave: () => {
          if (left) return;
          left = true;
          joined.leave(member);
        },
      },
    };
  }
}

function shallowEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const keysA = Object.keys(a);
  if (keysA.length !== Object.keys(b).length) return false;
  return keysA.every((k) => (a as Record<string, unknown>)[k] === (b as Record<string, unknown>)[k]);
}
