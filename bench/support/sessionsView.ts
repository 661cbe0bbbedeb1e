/**
 * A browser on the sessions view, as the web reads it: GET /sessions, then again after the
 * web's own refetchDelay (just after the server's gathering turns a cadence old), until closed.
 * The server decides when to gather (cons + dump on the members); the reads themselves are cheap.
 */
import type { SessionsAnswer } from '@keeper/shared';
import { refetchDelay } from '../../web/src/lib/gatherSchedule.js';
import { sleep } from './lifecycle.js';

export class SessionsViewer {
  reads = 0;
  errors: string[] = [];
  /** The last answer's session count and size in bytes. */
  sessions = 0;
  bytes = 0;
  /** Whether the last answer named a request-rate herd; null when the server's answer has no `herd` field. */
  herdNamed: boolean | null = null;
  private readonly stopped = new AbortController();
  private readonly loop: Promise<void>;

  constructor(keeperUrl: string, ensemble: string) {
    this.loop = this.run(`${keeperUrl}/api/ensembles/${encodeURIComponent(ensemble)}/sessions`);
  }

  async close(): Promise<void> {
    this.stopped.abort(new Error('closed'));
    await this.loop;
  }

  private async run(url: string): Promise<void> {
    const { signal } = this.stopped;
    while (!signal.aborted) {
      let delayMs = 5_000;
      try {
        const res = await fetch(url, { signal });
        const text = await res.text();
        this.reads++;
        if (!res.ok) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
        const answer = JSON.parse(text) as SessionsAnswer;
        this.sessions = answer.sessions.length;
        this.bytes = text.length;
        const { herd } = answer as { herd?: unknown };
        this.herdNamed = herd === undefined ? null : Boolean(herd);
        delayMs = refetchDelay(answer.nextGatherInSeconds);
      } catch (error) {
        if (signal.aborted) return;
        this.errors.push(String(error));
      }
      await sleep(delayMs, signal).catch(() => undefined);
    }
  }
}
