/**
 * vitest setup for the unit project: the DOM a test rendered is removed after it. Testing
 * Library does this itself by registering `afterEach(cleanup)` when it is imported, but the unit
 * files share their modules (isolate: false, vitest.config.ts), so it is imported, and that hook
 * registered, in the first file of a worker only. Setup files run for every file.
 */
import { afterEach } from 'vitest';

afterEach(async () => {
  if (typeof document === 'undefined') return;
  const { cleanup } = await import('@testing-library/react');
  cleanup();
});
