/**
 * What the hub needs from each live topic on the server: a way to start feeding one
 * subscription. The hub has already checked the role, the share scope, the parameters and the
 * caps; the producer only emits events (typed by the topic's declaration in shared/) and returns
 * how to stop. Producers share whatever they read across subscribers (the watch registry, the
 * member poller): a subscription costs the ensemble nothing that another already pays for.
 */
import type { Role, ShareScope, TopicEvent, TopicName, TopicParams } from '@keeper/shared';
import type { Ensemble } from '../ensemble/ensemble.js';

export interface Subscriber<T extends TopicName> {
  ensemble: Ensemble;
  params: TopicParams<T>;
  /**
   * The role and share scope of the browsers fed: what a producer emits may depend on them and on
   * nothing else about them (the hub shares one producer among all browsers of a role and scope
   * with the same params).
   */
  role: Role;
  /** A share-link holder's scope (what each event it receives must pass); null for everyone else. */
  scope: ShareScope | null;
  emit(event: TopicEvent<T>): void;
}

export interface TopicProducer<T extends TopicName> {
  topic: T;
  /**
   * Starts feeding one channel (current state first, then changes); returns how to stop. The
   * current state is emitted during the call when it is known: a browser joining a channel gets
   * it from a second open, stopped at once, so stopping must not disturb the first. An event
   * object emitted again unchanged (the same object) is not serialized again.
   */
  open(subscriber: Subscriber<T>): () => void;
  /** True when this subscription would make Keeper set a ZooKeeper watch nobody holds yet (the hub's watched-path cap). */
  addsWatch?(ensemble: Ensemble, params: TopicParams<T>): boolean;
}

/** Every topic's producer, by topic: a record over all names, so a declared topic without a producer does not compile. */
export type TopicProducers = { [T in TopicName]: TopicProducer<T> };
