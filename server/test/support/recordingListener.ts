/** A watch listener that records everything it is told, for assertions. */
import { applyChildrenDiff, type WatchEventType, type ZnodeState } from '@keeper/shared';
import type { ZkError } from '../../src/zk/errors.js';
import type { ChildrenUpdate, WatchListener } from '../../src/zk/watchRegistry.js';

export class RecordingListener implements WatchListener {
  nodes: ZnodeState[] = [];
  children: string[] | null = null;
  events: WatchEventType[] = [];
  errors: { error: ZkError; retrying: boolean }[] = [];

  get node(): ZnodeState | undefined {
    return this.nodes.at(-1);
  }

  /** The current data as text, or null when the node does not exist (or nothing arrived yet). */
  get text(): string | null {
    const node = this.node;
    return node && node.exists ? node.data.value : null;
  }

  onNode(state: ZnodeState): void {
    this.nodes.push(state);
  }
  onChildren(update: ChildrenUpdate): void {
    this.children = update.diff && this.children ? applyChildrenDiff(this.children, update.diff) : [...update.names];
  }
  onWatchEvent(type: WatchEventType): void {
    this.events.push(type);
  }
  onError(error: ZkError, retrying: boolean): void {
    this.errors.push({ error, retrying });
  }
}
