/**
 * The `consoleSession` topic: the gateway's session snapshot now, after every change, and at most
 * every CONFIRMED_PUSH_MS while it answers (so "last answer" under "connected" is never minutes old).
 */
import type { TopicProducer } from './topicProducer.js';

export const consoleSessionProducer: TopicProducer<'consoleSession'> = {
  topic: 'consoleSession',
  open({ ensemble, emit }) {
    const { gateway } = ensemble;
    const onSession = () => emit({ session: gateway.session });
    onSession();
    gateway.on('session', onSession);
    gateway.on('confirmed', onSession);
    return () => {
      gateway.off('session', onSession);
      gateway.off('confirmed', onSession);
    };
  },
};
