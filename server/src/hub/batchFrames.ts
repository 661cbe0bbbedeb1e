/**
 * Splits one outbox flush into `batch` frames of at most `maxFrameBytes` each, so that no
 * single frame can carry an unbounded burst (a browser re-subscribing 100 times to a large
 * child list would otherwise be answered with one 60 MB frame, past any buffer check). A frame
 * always holds at least one event: an event larger than the cap (a very long child list) goes
 * alone. The frames together are exactly what JSON.stringify({type: 'batch', events}) would say,
 * cut at event boundaries.
 */
import type { ServerEvent } from '@keeper/shared';

/** Frames of a flush are cut at about this size. */
export const MAX_BATCH_FRAME_BYTES = 1024 * 1024;

const HEAD = '{"type":"batch","events":[';
const TAIL = ']}';

export function* batchFrames(events: readonly ServerEvent[], maxFrameBytes = MAX_BATCH_FRAME_BYTES): Generator<string> {
  let parts: string[] = [];
  let size = HEAD.length + TAIL.length;
  for (const event of events) {
    const part = JSON.stringify(event);
    // Lengths in UTF-16 units: close enough to bytes for a cap, exact for ASCII.
    if (parts.length > 0 && size + part.length + 1 > maxFrameBytes) {
      yield HEAD + parts.join(',') + TAIL;
      parts = [];
      size = HEAD.length + TAIL.length;
    }
    parts.push(part);
    size += part.length + 1;
  }
  if (parts.length > 0) yield HEAD + parts.join(',') + TAIL;
}
