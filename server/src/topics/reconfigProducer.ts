/**
 * The `reconfig` topic: the ensemble's current (or last) resize, pushed after every change the
 * runner commits (a step sent, applied, verified; an action). One runner feeds every browser.
 * Nothing is sent before the state is read: "no resize" would be said before it was known. Every
 * browser gets the same event, so a filled startCommand is withheld (admins read it over HTTP).
 */
import { reconfigForReader } from '@keeper/shared';
import type { TopicProducer } from './topicProducer.js';

export const reconfigProducer: TopicProducer<'reconfig'> = {
  topic: 'reconfig',
  open({ ensemble, emit }) {
    const { reconfig } = ensemble;
    const send = () => {
      if (!reconfig.ready) return;
      const current = reconfig.current();
      emit({ kind: 'reconfig', reconfig: current && reconfigForReader(current, false), at: Date.now() });
    };
    send();
    return reconfig.onChange(send);
  },
};
