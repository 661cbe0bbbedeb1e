/** The depth a JSON body nests, counted from its bytes before it is parsed. */
import { describe, expect, it } from 'vitest';
import { depthPast, MAX_JSON_DEPTH } from '../../../src/http/jsonDepth.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('depthPast', () => {
  it('lets an export through: it nests 5 levels', () => {
    const doc = { format: 'keeper-export', nodes: [{ rel: '', acl: [{ scheme: 'world', id: 'anyone', permissions: 31 }], stat: { version: 0 } }] };
    expect(depthPast(bytes(JSON.stringify(doc)), 5)).toBeNull();
    expect(depthPast(bytes(JSON.stringify(doc)), 4)).toBe(5);
  });

  it('finds 10 MB of nested arrays past the limit at once', () => {
    const deep = bytes('['.repeat(5_000_000) + ']'.repeat(5_000_000));
    expect(depthPast(deep, MAX_JSON_DEPTH)).toBe(MAX_JSON_DEPTH + 1);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ data: '[[[[{{{{\\"[[[[', more: ['"]]]]'] });
    expect(depthPast(bytes(text), 2)).toBeNull();
  });
});
