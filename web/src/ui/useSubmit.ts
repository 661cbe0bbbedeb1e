/**
 * A form's one request at a time: busy while it runs, the refusal in words when it fails, the
 * answer handed on when it succeeds. Every write in the web goes through TanStack Query's
 * useMutation, this hook included, so a 401 on any write reaches the app's one MutationCache
 * handler. The dialogs keep their own words and fields; this keeps the three states in step,
 * so no dialog can stay busy after a refusal or lose its error.
 */
import { useMutation } from '@tanstack/react-query';

interface Submission {
  request: () => Promise<unknown>;
  onAnswer: (answer: unknown) => void;
  onFailure?: (err: unknown) => void;
}

export function useSubmit(errorText: (err: unknown) => string) {
  // The callbacks ride on the variables and run from the mutation's own options, which TanStack
  // calls even when the form has unmounted meanwhile (a dialog closed while its request ran).
  const mutation = useMutation<unknown, unknown, Submission>({
    mutationFn: ({ request }) => request(),
    onSuccess: (answer, { onAnswer }) => onAnswer(answer),
    onError: (err, { onFailure }) => onFailure?.(err),
  });
  /** Runs `request`; `onAnswer` gets its answer, `onFailure` sees a refusal before it is shown. */
  const submit = <T>(request: () => Promise<T>, onAnswer: (answer: T) => void, onFailure?: (err: unknown) => void): void => {
    mutation.mutate({ request, onAnswer: (answer) => onAnswer(answer as T), onFailure });
  };
  return { busy: mutation.isPending, error: mutation.isError ? errorText(mutation.error) : null, submit };
}
