/**
 * vitest setup for the unit project: a file rendered with Preact ends only once Preact's last
 * "after paint" timer has fired. Preact runs effects after the next frame, or after 35 ms when no
 * frame comes (hooks' `afterNextFrame`), and that timer's callback calls `cancelAnimationFrame`.
 * On a loaded machine the timer could fire after jsdom's globals were gone: "cancelAnimationFrame
 * is not defined", an unhandled error that failed the unit run with every test passed. A later,
 * longer timer fires after it (Node runs timers by expiry), so waiting for one here is enough.
 */
import { afterAll } from 'vitest';

const PREACT_RAF_TIMEOUT_MS = 35;

afterAll(async () => {
  if (typeof window === 'undefined') return;
  await new Promise((resolve) => setTimeout(resolve, PREACT_RAF_TIMEOUT_MS + 15));
});
