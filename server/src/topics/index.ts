/** Every live topic's producer: a topic declared in shared/ and missing here does not compile. */
import type { JobRegistry } from '../admin/jobs.js';
import { consoleSessionProducer } from './consoleSessionProducer.js';
import { ensembleHealthProducer } from './ensembleHealthProducer.js';
import { ensembleEventsProducer } from './ensembleEventsProducer.js';
import { jobsProducer } from './jobsProducer.js';
import { lockProducer } from './lockProducer.js';
import { locksProducer } from './locksProducer.js';
import { upgradeProducer } from './upgradeProducer.js';
import type { TopicProducers } from './topicProducer.js';
import { znodeProducer } from './znodeProducer.js';

export interface ProducerDeps {
  jobs: JobRegistry;
}

export function topicProducers(deps: ProducerDeps): TopicProducers {
  return {
    znode: znodeProducer,
    consoleSession: consoleSessionProducer,
    ensembleHealth: ensembleHealthProducer,
    jobs: jobsProducer(deps.jobs),
    locks: locksProducer,
    lock: lockProducer,
    upgrade: upgradeProducer,
    ensembleEvents: ensembleEventsProducer,
  };
}
