/**
 * A form's one request at a time: busy while it runs, the refusal in words when it fails, the
 * answer handed on when it succeeds. The dialogs keep their own words and fields; this keeps
 * the three states in step, so no dialog can stay busy after a refusal or lose its error.
 */
import { useState } from 'react';

export function useSubmit(errorText: (err: unknown) => string) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Runs `request`; `onAnswer` gets its answer, `onFailure` sees a refusal before it is shown. */
  const submit = <T>(request: () => Promise<T>, onAnswer: (answer: T) => void, onFailure?: (err: unknown) => void): void => {
    setBusy(true);
    setError(null);
    request().then(
      (answer) => {
        setBusy(false);
        onAnswer(answer);
      },
      (err: unknown) => {
        onFailure?.(err);
        setError(errorText(err));
        setBusy(false);
      },
    );
  };
  return { busy, error, submit };
}
