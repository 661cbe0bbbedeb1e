/**
 * The `upgrade` topic: the ensemble's current (or last) upgrade with its progress, pushed after
 * every change the runner commits (each poll that moves a check, each restart, each action).
 * One runner per ensemble feeds every browser: a subscription costs nothing of ZooKeeper.
 */
import type { TopicProducer } from './topicProducer.js';

export const upgradeProducer: TopicProducer<'upgrade'> = {
  topic: 'upgrade',
  open({ ensemble, emit }) {
    const { upgrades } = ensemble;
    const send = () => {
      const wf = upgrades.current();
      emit({ kind: 'upgrade', upgrade: wf ? upgrades.answer(wf) : null, at: Date.now() });
    };
    send();
    return upgrades.onChange(send);
  },
};
