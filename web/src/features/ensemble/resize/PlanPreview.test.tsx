// @vitest-environment jsdom
import '../../../testSupport/dom';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SizeChange } from './PlanPreview';

const three = { voters: 3, observers: 0, tolerates: 1, sentence: '3 voters tolerate 1 failure' };
const five = { voters: 5, observers: 0, tolerates: 2, sentence: '5 voters tolerate 2 failures' };
const labels = () => screen.getAllByRole('term').map((t) => t.textContent);

describe('the size before and after a resize', () => {
  it('calls the new size "now" once the resize is done, not the old one (issue 34, item 14)', () => {
    render(<SizeChange before={three} after={five} state="done" />);
    expect(labels()).toEqual(['before', 'now']);
  });

  it('is "now" and "after" while planned or running, "before" and "planned" when it stopped', () => {
    const { unmount } = render(<SizeChange before={three} after={five} state="running" />);
    expect(labels()).toEqual(['now', 'after']);
    unmount();
    render(<SizeChange before={three} after={five} state="aborted" />);
    expect(labels()).toEqual(['before', 'planned']);
  });
});
