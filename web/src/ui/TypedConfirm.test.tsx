// @vitest-environment jsdom
/**
 * The typed confirmation every destructive dialog uses: the button behind it is enabled only once
 * the phrase is typed (spaces around it ignored; a name with hidden characters typed as shown),
 * and the field is named so a screen reader and the e2e tests find it.
 */
import '../testSupport/dom';
import { useState } from 'react';
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TypedConfirm, typedMatches } from './TypedConfirm';

function Harness({ phrase, ariaLabel }: { phrase: string; ariaLabel?: string }) {
  const [typed, setTyped] = useState('');
  return (
    <form>
      <TypedConfirm phrase={phrase} value={typed} onChange={setTyped} ariaLabel={ariaLabel} />
      <button type="submit" disabled={!typedMatches(phrase, typed)}>
        Delete
      </button>
    </form>
  );
}

describe('typedMatches', () => {
  it('takes the phrase with spaces around it, and nothing else', () => {
    expect(typedMatches('big', ' big ')).toBe(true);
    expect(typedMatches('big', 'Big')).toBe(false);
    expect(typedMatches('big', '/app/big')).toBe(false);
    expect(typedMatches('skip member 2', 'skip member 2')).toBe(true);
    expect(typedMatches('skip member 2', 'skip member')).toBe(false);
  });

  it('takes a name with hidden characters as shown, escaped', () => {
    expect(typedMatches('abc\u202egpj.exe', 'abc\\u202Egpj.exe')).toBe(true);
    expect(typedMatches('abc\u202egpj.exe', 'abcgpj.exe')).toBe(false);
  });
});

describe('TypedConfirm', () => {
  it('enables the write only once the phrase is typed', () => {
    render(<Harness phrase="ledger" />);
    const field = screen.getByRole('textbox', { name: 'Type ledger to confirm' });
    const button = screen.getByRole('button', { name: 'Delete' });
    expect(button).toBeDisabled();
    fireEvent.change(field, { target: { value: 'ledge' } });
    expect(button).toBeDisabled();
    fireEvent.change(field, { target: { value: 'ledger' } });
    expect(button).toBeEnabled();
    expect(field).toHaveAttribute('autocomplete', 'off');
    expect(field).toHaveAttribute('spellcheck', 'false');
  });

  it('shows a hidden character escaped and is named by its aria label when given', () => {
    render(<Harness phrase={'abc\u202egpj.exe'} ariaLabel="Type the name to confirm" />);
    expect(screen.getByText('abc\\u202Egpj.exe')).toHaveClass('mono');
    const field = screen.getByRole('textbox', { name: 'Type the name to confirm' });
    fireEvent.change(field, { target: { value: 'abc\\u202Egpj.exe' } });
    expect(screen.getByRole('button', { name: 'Delete' })).toBeEnabled();
  });
});
