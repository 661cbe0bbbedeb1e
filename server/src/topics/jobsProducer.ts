/** The `jobs` topic (admins only): the ensemble's long operations as they are now, then each update. */
import type { JobRegistry } from '../admin/jobs.js';
import type { TopicProducer } from './topicProducer.js';

export function jobsProducer(jobs: JobRegistry): TopicProducer<'jobs'> {
  return {
    topic: 'jobs',
    open({ ensemble, emit }) {
      for (const job of jobs.list()) if (job.ensemble === ensemble.name && job.state === 'running') emit({ job });
      const onUpdate = (job: Parameters<typeof emit>[0]['job']) => {
        if (job.ensemble === ensemble.name) emit({ job });
      };
      jobs.on('update', onUpdate);
      return () => jobs.off('update', onUpdate);
    },
  };
}
