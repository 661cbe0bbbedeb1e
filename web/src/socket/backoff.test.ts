import { describe, expect, it } from 'vitest';
import { HIDDEN_MAX_MS, reconnectDelay, VISIBLE_MAX_MS } from './backoff';

describe('reconnectDelay', () => {
  it('starts at about half a second', () => {
    expect(reconnectDelay(0, true, 0.5)).toBe(500);
    expect(reconnectDelay(0, true, 0)).toBe(400);
    expect(reconnectDelay(0, true, 0.999)).toBeLessThanOrEqual(600);
  });
  it('doubles up to 2 s while visible', () => {
    expect(reconnectDelay(1, true, 0.5)).toBe(1000);
    expect(reconnectDelay(2, true, 0.5)).toBe(VISIBLE_MAX_MS);
    expect(reconnectDelay(50, true, 0.5)).toBe(VISIBLE_MAX_MS);
  });
  it('waits much longer while hidden', () => {
    expect(reconnectDelay(10, false, 0.5)).toBe(HIDDEN_MAX_MS);
    expect(reconnectDelay(3, false, 0.5)).toBe(4000);
  });
});
