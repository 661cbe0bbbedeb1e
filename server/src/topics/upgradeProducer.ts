/**
 * The `upgrade` topic: the ensemble's current (or last) upgrade with its progress, pushed after
 * every change the runner commits (each poll that moves a check, each restart, each action).
 * One runner per ensemble feeds every browser: a subscription costs nothing of ZooKeeper. Every
 * subscriber gets the same event, the one any of them may read: restart commands and their output
 * withheld (admins read those over HTTP). Nothing is sent before the state is read: "no upgrade"
 * would be said before it was known.
 */
import type { TopicProducer } from './topicProducer.js';

export const upgradeProducer: TopicProducer<'upgrade'> = {
  topic: 'upgrade',
  open({ ensemble, emit }) {
    const { upgrades } = ensemble;
    const send = () => {
      if (!upgrades.ready) return;
      const wf = upgrades.current();
      emit({ kind: 'upgrade', upgrade: wf ? upgrades.answer(wf, 'viewer') : null, at: Date.now() });
    };
    send();
    return upgrades.onChange(send);
  },
};
