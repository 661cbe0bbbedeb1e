/**
 * The `consoleSession` topic: the gateway's session snapshot now, after every change, and at most
 * every CONFIRMED_PUSH_MS while it answers (so "last answer" under "connected" is never minutes old),
 * as its audience may see it (sessionView.ts).
 */
import type { TopicProducer } from './topicProducer.js';
import { sessionAudience, sessionFor } from '../auth/sessionView.js';

export const consoleSessionProducer: TopicProducer<'consoleSession'> = {
  topic: 'consoleSession',
  open({ ensemble, emit, role, scope }) {
    const { gateway } = ensemble;
    // Channels are per role and scope: each audience's masks are applied once for all its browsers.
    const audience = sessionAudience(role, scope);
    const onSession = () => emit({ session: sessionFor(gateway.session, audience) });
    onSession();
    gateway.on('session', onSession);
    gateway.on('confirmed', onSession);
    return () => {
      gateway.off('session', onSession);
      gateway.off('confirmed', onSession);
    };
  },
};
