/**
 * A labelled form field whose hint or error is announced as its description, not read as part
 * of its name (a label wrapping the hint would make "Note" be called "Note Shown in the list...").
 */
import { useId, type ReactNode } from 'react';

export interface FieldControlProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean;
}

export function Field({
  label,
  hint,
  error,
  className = '',
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  /** Shown instead of the hint, in red, and marks the control invalid. */
  error?: ReactNode;
  className?: string;
  children: (control: FieldControlProps) => ReactNode;
}) {
  const id = useId();
  const noteId = `${id}-note`;
  const note = error ?? hint;
  return (
    <div className={`field${error ? ' field--invalid' : ''} ${className}`}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {children({ id, ...(note ? { 'aria-describedby': noteId } : {}), ...(error ? { 'aria-invalid': true } : {}) })}
      {note && (
        <span id={noteId} className={error ? 'field__error' : 'field__hint'}>
          {note}
        </span>
      )}
    </div>
  );
}
