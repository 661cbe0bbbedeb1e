/** The `consoleSession` topic: the gateway's session snapshot now and after every change. */
import type { TopicProducer } from './topicProducer.js';

export const consoleSessionProducer: TopicProducer<'consoleSession'> = {
  topic: 'consoleSession',
  open({ ensemble, emit }) {
    const { gateway } = ensemble;
    const onSession = () => emit({ session: gateway.session });
    onSession();
    gateway.on('session', onSession);
    return () => gateway.off('session', onSession);
  },
};
