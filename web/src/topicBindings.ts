/**
 * Every live topic's web binding, one per name of TOPICS (shared/src/protocol/topics.ts): a topic
 * declared there without a binding here does not compile. main.tsx installs the record at start-up,
 * so an event is never dropped for want of a binding whose feature's chunk has not loaded yet.
 */
import type { TopicBindings } from './socket/topicRegistry';
import { consoleSessionBinding } from './app/consoleSession/consoleSessionTopic';
import { jobsBinding } from './app/jobs/jobs';
import { ensembleEventsBinding } from './features/ensemble/ensembleEventsTopic';
import { ensembleHealthBinding } from './features/ensemble/ensembleHealthTopic';
import { reconfigBinding } from './features/ensemble/resize/reconfigTopic';
import { lockBinding, locksBinding } from './features/locks/locksTopic';
import { znodeBinding } from './features/tree/znodeTopic';
import { upgradeBinding } from './features/upgrades/upgradeTopic';

export const TOPIC_BINDINGS: TopicBindings = {
  znode: znodeBinding,
  consoleSession: consoleSessionBinding,
  ensembleHealth: ensembleHealthBinding,
  jobs: jobsBinding,
  locks: locksBinding,
  lock: lockBinding,
  upgrade: upgradeBinding,
  reconfig: reconfigBinding,
  ensembleEvents: ensembleEventsBinding,
};
