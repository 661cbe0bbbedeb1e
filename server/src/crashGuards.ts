/**
 * Last line of defence: an exception escaping a library callback (node-zookeeper-client
 * throws from socket handlers) is logged, not fatal. The known throws are contained at their
 * source (zk/connection.ts, zk/nzcPatches.ts); this only keeps an unknown one from taking
 * every browser's console down with it.
 */
import type { Logger } from 'pino';

let installed = false;

export function installCrashGuards(log: Logger): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (error) => log.error({ err: error }, 'uncaught exception contained'));
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection contained'));
}
