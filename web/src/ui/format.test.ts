import { describe, expect, it } from 'vitest';
import { count, duration, fds, latencyTriple, ms } from './format';

describe('member figures', () => {
  it('shows missing figures as a dash, never 0', () => {
    expect(count(null)).toBe('—');
    expect(count(0)).toBe('0');
    expect(latencyTriple(null, null, null)).toBe('—');
  });
  it('formats latencies like ZooKeeper reports them', () => {
    expect(ms(0)).toBe('0');
    expect(ms(0.4213)).toBe('0.42');
    expect(ms(12.34)).toBe('12.3');
    expect(ms(250.6)).toBe('251');
    expect(latencyTriple(0, 0.42, 12)).toBe('0 / 0.42 / 12 ms');
  });
  it('formats timeouts', () => {
    expect(duration(4_000)).toBe('4 s');
    expect(duration(30_000)).toBe('30 s');
    expect(duration(900_000)).toBe('15 min');
    expect(duration(5_400_000)).toBe('90 min');
    expect(duration(7_200_000)).toBe('2 h');
  });
  it('shows file descriptors with the share once it matters', () => {
    expect(fds(84, 1_048_576)).toBe('84 of 1,048,576');
    expect(fds(900, 1024)).toBe('900 of 1,024 (88%)');
    expect(fds(null, 10)).toBe('—');
  });
});
