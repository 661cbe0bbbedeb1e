/**
 * Calls back once when this process is orphaned (its parent exited). A supervisor that
 * signals only the top pid of `npm start` (npm -> sh -> node) kills the wrappers and
 * leaves us running; treating orphanhood like SIGTERM still shuts down in order.
 */
export function onOrphaned(callback: () => void, intervalMs = 1000): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      callback();
    }
  }, intervalMs);
  timer.unref();
}
