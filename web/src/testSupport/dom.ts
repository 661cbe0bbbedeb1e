/**
 * Imported first by every component test (files that declare `// @vitest-environment jsdom`):
 * jest-dom's matchers (toBeDisabled, toHaveTextContent, ...) on vitest's expect, and unmounting
 * after each test, which Testing Library only does by itself when the runner has global hooks.
 */
import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(cleanup);
