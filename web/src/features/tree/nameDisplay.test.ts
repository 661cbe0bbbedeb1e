import { describe, expect, it } from 'vitest';
import { middleCut } from './nameDisplay';

describe('middleCut', () => {
  it('keeps a sequential name’s counter and a little of its prefix whole', () => {
    const name = '_c_6f1e0f54-8d4e-4ec5-9d38-0c1f2a3b4c5d-lock-0000000003';
    const { head, tail } = middleCut(name);
    expect(tail).toBe('-lock-0000000003');
    expect(head + tail).toBe(name);
  });

  it('keeps a short sequential name entirely in the uncut tail', () => {
    expect(middleCut('lock-0000000003')).toEqual({ head: '', tail: 'lock-0000000003' });
  });

  it('keeps the end of other long names, and leaves short ones to ordinary ellipsis', () => {
    expect(middleCut('a-very-long-configuration-name.json')).toEqual({ head: 'a-very-long-configuration-n', tail: 'ame.json' });
    expect(middleCut('database.json')).toEqual({ head: 'database.json', tail: '' });
  });

  it('never splits a surrogate pair', () => {
    const name = 'aaaaaaaaaaaaaaaaaaaaaaa🚀bcdefgh';
    const { head, tail } = middleCut(name);
    expect(head + tail).toBe(name);
    expect(tail.startsWith('🚀')).toBe(true);
  });
});
