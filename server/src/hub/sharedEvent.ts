/**
 * An event serialized once for every socket that gets it. A channel (one producer feeding every
 * browser subscribed to the same topic, ensemble and parameters) wraps each event it emits in a
 * SharedEvent: its JSON is built once, and an event sent alone in a frame has its frame bytes
 * built once too, so a thousand sockets are handed the same Buffer. Events the producer hands
 * out again unchanged (the pages of a child list, a locks list pushed before) are recognised and
 * not serialized again.
 */
import { subscriptionKey, topicDeclaration, type ServerEvent } from '@keeper/shared';

/** A frame's bytes as written to sockets; `holders` counts the sockets that have not written it out yet. */
export class Frame {
  holders = 0;
  constructor(readonly bytes: Buffer) {}

  get size(): number {
    return this.bytes.length;
  }
}

export const BATCH_HEAD = '{"type":"batch","events":[';
export const BATCH_TAIL = ']}';
/** What a batch frame adds around its events, besides a comma between two. */
export const BATCH_OVERHEAD = BATCH_HEAD.length + BATCH_TAIL.length;

/** Event objects already serialized: the same object (a page of a list, handed to two audiences) is serialized once. */
const eventJson = new WeakMap<object, string>();

function jsonOf(event: unknown): { json: string; fresh: boolean } {
  if (typeof event === 'object' && event !== null) {
    const known = eventJson.get(event);
    if (known !== undefined) return { json: known, fresh: false };
    const json = JSON.stringify(event);
    eventJson.set(event, json);
    return { json, fresh: true };
  }
  return { json: JSON.stringify(event), fresh: true };
}

let nextId = 1;

export class SharedEvent {
  readonly id = nextId++;
  /**
   * When its channel last emitted it live (performance.now()): the start of keeper_push_seconds,
   * which ends when a socket is handed its frame. Replays to a new subscriber are not timed.
   */
  liveAt = 0;
  private solo: Frame | null = null;

  private constructor(
    readonly envelope: ServerEvent,
    /** The envelope's JSON, as it goes into a batch's events. */
    readonly json: string,
    readonly bytes: number,
    /** Bytes serialized afresh to make this (0 when the event's JSON was already known). */
    readonly freshBytes: number,
    /** Replaces an unsent earlier event with the same key: same subscription, same coalescing key. */
    readonly replaceKey: string | null,
    /** False lets it wait for the next flush (a bare watch notification). */
    readonly urgent: boolean,
    /** A page of a list the producer keeps anyway: waiting in a socket's queue it adds no memory. */
    readonly streamed: boolean,
  ) {}

  /**
   * `prefix`: the envelope's JSON up to the event (`{"topic":…,"ensemble":…,"params":…,"event":`),
   * made once per channel by envelopePrefix().
   */
  static of(envelope: ServerEvent, prefix: string): SharedEvent {
    const declaration = topicDeclaration(envelope.topic);
    const { json: eventText, fresh } = jsonOf(envelope.event);
    const json = `${prefix}${eventText}}`;
    const bytes = Buffer.byteLength(json);
    const coalesce = declaration.coalesceKey(envelope.event);
    const replaceKey = coalesce === null ? null : `${subscriptionKey(envelope.topic, envelope.ensemble, envelope.params)}\u0000${coalesce}`;
    const urgent = declaration.urgent?.(envelope.event) ?? true;
    return new SharedEvent(envelope, json, bytes, fresh ? bytes : 0, replaceKey, urgent, isPage(envelope));
  }

  /** The size of this event alone in a batch frame. */
  get soloSize(): number {
    return this.bytes + BATCH_OVERHEAD;
  }

  /** Sockets that have not yet written out this event's solo frame. */
  soloHolders(): number {
    return this.solo?.holders ?? 0;
  }

  /** This event alone in a frame: built once, the same bytes for every socket. */
  soloFrame(): Frame {
    this.solo ??= new Frame(Buffer.from(`${BATCH_HEAD}${this.json}${BATCH_TAIL}`));
    return this.solo;
  }
}

/** The envelope's JSON before its event, in the key order the batch schema reads. */
export function envelopePrefix(topic: string, ensemble: string, params: unknown): string {
  return `{"topic":${JSON.stringify(topic)},"ensemble":${JSON.stringify(ensemble)},"params":${JSON.stringify(params)},"event":`;
}

function isPage(envelope: ServerEvent): boolean {
  return envelope.topic === 'znode' && envelope.event.kind === 'children' && envelope.event.mode === 'page';
}

/** A frame of several events, in order: what JSON.stringify({type: 'batch', events}) would say. */
export function batchFrame(events: readonly SharedEvent[]): Frame {
  return new Frame(Buffer.from(`${BATCH_HEAD}${events.map((e) => e.json).join(',')}${BATCH_TAIL}`));
}
