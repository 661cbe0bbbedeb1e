/**
 * A confirmation by typing: the operator types a phrase (a node's name, "skip member 2", a
 * path) before a write that cannot be undone is allowed. One field for every such dialog, so
 * they accept the same input: surrounding spaces are ignored, and a name holding hidden
 * characters (`abc\u202Egpj.exe`, which cannot be typed) is matched in its escaped form, as shown.
 */
import type { KeyboardEvent, ReactNode } from 'react';
import { escapeHiddenChars } from '../lib/invisibleChars';
import { Field } from './Field';

/** Whether `typed` confirms `phrase`: the phrase itself, or as shown with hidden characters escaped. */
export function typedMatches(phrase: string, typed: string): boolean {
  const t = typed.trim();
  return t === phrase || t === escapeHiddenChars(phrase);
}

export function TypedConfirm({
  phrase,
  value,
  onChange,
  shown = <span className="mono">{escapeHiddenChars(phrase)}</span>,
  label = (p) => <>Type {p} to confirm</>,
  hint,
  ariaLabel,
  autoFocus = false,
  className,
  onKeyDown,
}: {
  /** What must be typed. */
  phrase: string;
  value: string;
  onChange: (typed: string) => void;
  /** How the phrase is shown in the label (default: monospace, hidden characters escaped). */
  shown?: ReactNode;
  /** The label around the shown phrase (default "Type … to confirm"). */
  label?: (shown: ReactNode) => ReactNode;
  hint?: ReactNode;
  /** The field's accessible name when the visible label is not the right one to read out. */
  ariaLabel?: string;
  autoFocus?: boolean;
  className?: string;
  onKeyDown?: (e: KeyboardEvent<HTMLInputElement>) => void;
}) {
  return (
    <Field label={label(shown)} hint={hint} className={className}>
      {(control) => (
        <input
          {...control}
          className="input mono"
          autoFocus={autoFocus}
          autoComplete="off"
          spellCheck="false"
          value={value}
          aria-label={ariaLabel}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={onKeyDown}
        />
      )}
    </Field>
  );
}
