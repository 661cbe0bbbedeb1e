/**
 * The `znode` topic: one listener on the ensemble's shared watch registry per subscription, so a
 * thousand browsers on one path cost one ZooKeeper watch. Children go out in full the first time
 * (and whenever the registry has no diff), then as diffs.
 */
import type { TopicProducer } from './topicProducer.js';

export const znodeProducer: TopicProducer<'znode'> = {
  topic: 'znode',
  addsWatch: (ensemble, params) => !ensemble.gateway.watches.isWatched(params.path),
  open({ ensemble, params, emit }) {
    let sentFullChildren = false;
    return ensemble.gateway.watches.watch(params.path, {
      onNode: (node) => emit({ kind: 'state', node, at: Date.now() }),
      onChildren: ({ names, diff }) => {
        if (!sentFullChildren || !diff) {
          sentFullChildren = true;
          emit({ kind: 'children', mode: 'full', names: [...names], total: names.length });
        } else {
          emit({ kind: 'children', mode: 'diff', added: diff.added, removed: diff.removed, total: names.length });
        }
      },
      onWatchEvent: (event, at) => emit({ kind: 'watchEvent', event, at }),
      onError: (error, retrying) => emit({ kind: 'error', message: error.message, retrying }),
    });
  },
};
