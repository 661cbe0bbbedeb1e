/** Polls until the check passes or the time is up; the last failure is the test's failure. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = {},
): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== false && value !== undefined && value !== null) return value as Exclude<T, false | null | undefined>;
      lastError = new Error(`${what} not met`);
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${String(lastError)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
