import { describe, expect, it } from 'vitest';
import { whatIfDown } from '@keeper/shared';
import { whatIfLook } from './WhatIf';
import { healthOf, healthy, leader, member, oneDown } from '../../../testSupport/ensembleFixtures';

describe('whatIfLook', () => {
  it('is green when the quorum holds with margin, amber at the edge, red when lost', () => {
    const h = healthy();
    expect(whatIfLook(whatIfDown(h.members, h.members[0]!))).toEqual({ tone: 'degraded', word: 'holds, no margin' });
    const five = healthOf([member(1), leader(2), member(3), member(4), member(5)]);
    expect(whatIfLook(whatIfDown(five.members, five.members[0]!))).toEqual({ tone: 'live', word: 'quorum holds' });
    const d = oneDown();
    expect(whatIfLook(whatIfDown(d.members, d.members[0]!))).toEqual({ tone: 'lost', word: 'quorum lost' });
  });
});
