// @vitest-environment jsdom
import '../../../testSupport/dom';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ReconfigWorkflow } from '@keeper/shared';
import { JoinerStarts } from './JoinerStarts';

const AT = Date.UTC(2026, 11, 7, 9, 30, 0);
const joiner = (memberId: number) => ({
  memberId,
  role: 'participant',
  startCommand: null,
  startCommandWithheld: false,
  zooCfg: 'tickTime=2000',
  dynamicConfig: `server.${memberId}=…`,
});
const addStep = (memberId: number) => ({ kind: 'add', memberId, state: 'pending' });
const workflow = (preflight: ReconfigWorkflow['preflight']) =>
  ({ joiners: [joiner(6), joiner(7)], steps: [addStep(6), addStep(7)], preflight }) as unknown as ReconfigWorkflow;
const seen = (id: number) => ({ id: `joiner-${id}`, ok: true, saw: `member ${id} is a synced learner`, at: AT });

describe('the members a resize adds', () => {
  it('asks to start them while the preflight has not seen them ready', () => {
    render(<JoinerStarts wf={workflow([{ id: 'joiner-6', ok: false, saw: 'not answering', at: AT }])} admin />);
    expect(screen.getByRole('heading')).toHaveTextContent('Start the members to add first');
    expect(screen.getAllByText(/not seen ready yet/)).toHaveLength(2);
  });

  it('says they were seen ready, as of the check, once the preflight saw each (issue 34, item 14)', () => {
    render(<JoinerStarts wf={workflow([seen(6), seen(7)])} admin />);
    expect(screen.getByRole('heading')).toHaveTextContent('The members to add were seen ready');
    expect(screen.getByText(/member 6 is a synced learner/)).toBeInTheDocument();
    expect(screen.queryByText(/not seen ready yet/)).toBeNull();
  });

  it('asks to start only the one not seen', () => {
    render(<JoinerStarts wf={workflow([seen(6)])} admin />);
    expect(screen.getByRole('heading')).toHaveTextContent('Start the member to add first');
    expect(screen.getAllByText(/not seen ready yet/)).toHaveLength(1);
  });
});
