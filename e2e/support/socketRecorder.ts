/**
 * What a page lived through, recorded in the page itself (Playwright's polling could miss a
 * half-second window): every WebSocket opened, welcomed and closed, and every change of whether
 * the page says it is not live (the connection banner, the views' "as of" notes). Times are the
 * browser's epoch ms. Installed before any script of the page runs; survives nothing but a
 * reload, so an intact record also proves the page was never reloaded.
 */
import type { BrowserContext, Page } from '@playwright/test';

export interface Recorded {
  t: number;
  kind: 'ws-new' | 'ws-open' | 'ws-welcome' | 'ws-close' | 'ui';
  /** ui: the banner's words (empty when none shows) and whether any "as of" note shows. */
  banner?: string;
  asOf?: boolean;
  code?: number;
}

export async function installRecorder(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const log: Recorded[] = [];
    (window as unknown as { __keeperRecord: Recorded[] }).__keeperRecord = log;
    const now = () => performance.timeOrigin + performance.now();
    const Native = window.WebSocket;
    class RecordedSocket extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        log.push({ t: now(), kind: 'ws-new' });
        this.addEventListener('open', () => log.push({ t: now(), kind: 'ws-open' }));
        this.addEventListener('close', (e) => log.push({ t: now(), kind: 'ws-close', code: e.code }));
        this.addEventListener('message', (e) => {
          if (typeof e.data === 'string' && e.data.startsWith('{"type":"welcome"')) log.push({ t: now(), kind: 'ws-welcome' });
        });
      }
    }
    window.WebSocket = RecordedSocket;
    let last = '';
    const look = () => {
      const banner = document.querySelector('.banner')?.textContent ?? '';
      const asOf = document.querySelector('.as-of') !== null;
      const key = `${banner}|${asOf}`;
      if (key !== last) log.push({ t: now(), kind: 'ui', banner, asOf });
      last = key;
    };
    // At each DOM change (timed when React commits it), and every 20 ms as a backstop.
    const observe = () => new MutationObserver(look).observe(document.documentElement, { childList: true, subtree: true, characterData: true });
    if (document.documentElement) observe();
    else document.addEventListener('DOMContentLoaded', observe);
    setInterval(look, 20);
  });
}

export function recordOf(page: Page): Promise<Recorded[]> {
  return page.evaluate(() => (window as unknown as { __keeperRecord: Recorded[] }).__keeperRecord);
}
