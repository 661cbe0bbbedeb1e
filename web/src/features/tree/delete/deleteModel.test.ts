import { describe, expect, it } from 'vitest';
import { typedMatches } from '../../../ui/TypedConfirm';
import { confirmWord, countWords } from './deleteModel';

const confirmMatches = (path: string, typed: string) => typedMatches(confirmWord(path), typed);

describe('delete rules', () => {
  it('confirms with the node’s own name', () => {
    expect(confirmMatches('/app/big', 'big')).toBe(true);
    expect(confirmMatches('/app/big', ' big ')).toBe(true);
    expect(confirmMatches('/app/big', '/app/big')).toBe(false);
    expect(confirmMatches('/app/big', 'Big')).toBe(false);
  });

  it('confirms a name with hidden characters as shown (escaped), since those cannot be typed', () => {
    expect(confirmMatches('/app/abc\u202egpj.exe', 'abc\\u202Egpj.exe')).toBe(true);
    expect(confirmMatches('/app/abc\u202egpj.exe', 'abcgpj.exe')).toBe(false);
  });

  it('counts in words', () => {
    expect(countWords(10_001, false)).toBe('10,001 nodes');
    expect(countWords(1, false)).toBe('1 node');
    expect(countWords(200_000, true)).toBe('at least 200,000 nodes');
  });
});
