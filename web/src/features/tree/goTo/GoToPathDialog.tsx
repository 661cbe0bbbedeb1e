/**
 * "Go to path" (`g`, or the top bar's button on a phone): paste or type a znode path and land
 * there, with the children of each level offered as you type. The children come from the same
 * live subscription an expanded tree node uses (shared with the tree when it is open there, let
 * go when the box moves on or closes), so completing costs one watch at a time. A share link's
 * holder is offered only the way into its scope and what lies below it.
 */
import { useDeferredValue, useId, useMemo, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { useMe } from '../../../app/me';
import { Dialog } from '../../../ui/Dialog';
import { formatCount } from '../../../lib/bytes';
import { escapeHiddenChars } from '../../../lib/invisibleChars';
import { useChildrenEntry, useSubscription, useSubscriptionError, useZnodeEntry } from '../znodeTopic';
import { isFinalFailure, readFailureOf } from '../readFailure';
import { znodeUrl } from '../../../app/urls/treeUrls';
import { completed, completionSource, goToTarget, matchCompletions } from './goToModel';
import '../../../ui/forms.css';
import './goTo.css';

const NONE = { paths: [] as string[], total: 0 };

export function GoToPathDialog({ ensemble, open, onClose, initialPath }: { ensemble: string; open: boolean; onClose: () => void; initialPath: string }) {
  return (
    <Dialog open={open} onClose={onClose} title="Go to path" className="goto">
      <GoToPathForm ensemble={ensemble} onClose={onClose} initialPath={initialPath} />
    </Dialog>
  );
}

function GoToPathForm({ ensemble, onClose, initialPath }: { ensemble: string; onClose: () => void; initialPath: string }) {
  const navigate = useNavigate();
  const scopeRoot = useMe().data?.shareLink?.scope?.root ?? '/';
  const [text, setText] = useState(() => completed(initialPath));
  const [active, setActive] = useState(-1);
  const [problem, setProblem] = useState<string | null>(null);
  const listId = useId();

  const source = completionSource(text, scopeRoot);
  const parent = source.kind === 'children' ? source.parent : null;
  useSubscription(ensemble, parent);
  const children = useChildrenEntry(ensemble, parent ?? '/');
  const parentNode = useZnodeEntry(ensemble, parent ?? '/');
  const failure = readFailureOf(useSubscriptionError(ensemble, parent ?? '/'));
  const names = source.kind === 'children' ? children?.names : undefined;
  const partial = useDeferredValue(source.kind === 'children' ? source.partial : '');
  const listed = useMemo(() => (names && parent !== null ? matchCompletions(parent, names, partial) : NONE), [names, parent, partial]);
  // Above a share link's scope nothing is listed: the scope root is the one way on.
  const matches = source.kind === 'scopeRoot' ? (source.leadsThere ? { paths: [source.root], total: 1 } : NONE) : listed;
  const shown = matches.paths;
  const activePath = active >= 0 && active < shown.length ? shown[active] : undefined;

  const status =
    source.kind === 'scopeRoot'
      ? source.leadsThere
        ? `This link reaches ${source.root} and below.`
        : `Outside this link's scope: it reaches ${source.root} and below.`
      : parent === null
        ? ''
        : children === undefined
          ? isFinalFailure(failure)
            ? failure?.kind === 'noAuth'
              ? `Keeper may not list the children of ${parent} (its ACL).`
              : `The children of ${parent} could not be read: ${failure?.message ?? 'unknown error'}.`
            : parentNode !== undefined && !parentNode.node.exists
              ? `No znode at ${parent}.`
              : `Reading the children of ${parent}…`
          : matches.total === 0
            ? children.total === 0
              ? `${parent} has no children.`
              : `No child of ${parent} matches.`
            : `${partial === '' ? '' : `${formatCount(matches.total)} of `}${formatCount(children.total)} ${children.total === 1 ? 'child' : 'children'} of ${parent}${
                partial === '' ? '' : ' match'
              }${matches.total > shown.length ? `; the first ${shown.length} shown, type on to narrow` : ''}`;

  const edit = (next: string) => {
    setText(next);
    setActive(-1);
    setProblem(null);
  };
  const go = (path: string) => {
    const target = goToTarget(path, scopeRoot);
    if (!target.ok) {
      setProblem(target.reason);
      return;
    }
    onClose();
    navigate(znodeUrl(ensemble, target.path));
  };
  const fill = (path: string) => edit(completed(path));

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (shown.length === 0) return;
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (i < 0 ? (step === 1 ? 0 : shown.length - 1) : (i + step + shown.length) % shown.length));
    } else if (e.key === 'Tab' && !e.shiftKey) {
      const pick = activePath ?? shown[0];
      // Nothing to complete: Tab moves on to the Go button as usual.
      if (pick === undefined) return;
      e.preventDefault();
      fill(pick);
    }
  };

  return (
    <form
      className="goto__form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        go(activePath ?? text);
      }}
    >
      <div className="goto__row">
        <input
          className="input mono goto__input"
          role="combobox"
          aria-label="Znode path"
          aria-expanded={shown.length > 0}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={activePath !== undefined ? `${listId}-${active}` : undefined}
          aria-invalid={problem !== null || undefined}
          aria-describedby={`${listId}-status`}
          placeholder="/app/billing/locks/x"
          value={text}
          onChange={(e) => edit(e.target.value)}
          onKeyDown={onKeyDown}
          // Selected as it opens, so a pasted path replaces the one it starts with.
          onFocus={(e) => e.currentTarget.select()}
          data-autofocus
          spellCheck="false"
          autoComplete="off"
          autoCapitalize="none"
          autoCorrect="off"
          enterKeyHint="go"
        />
        <button type="submit" className="btn btn--primary">
          Go
        </button>
      </div>
      {problem !== null ? (
        <p id={`${listId}-status`} className="goto__status field__error" role="alert">
          {problem}
        </p>
      ) : (
        <p id={`${listId}-status`} className="goto__status muted" aria-live="polite">
          {status}
        </p>
      )}
      <ul id={listId} role="listbox" aria-label="Completions" className="goto__list">
        {shown.map((path, i) => (
          <li
            key={path}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            className={`goto__option mono${i === active ? ' is-active' : ''}`}
            // Keep the focus in the box: a tap or click fills the completion in, the next level follows.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => fill(path)}
            title={escapeHiddenChars(path)}
          >
            <Completion path={path} />
          </li>
        ))}
      </ul>
      <p className="goto__keys muted">
        <kbd>Tab</kbd> completes · <kbd>↑</kbd>
        <kbd>↓</kbd> choose · <kbd>Enter</kbd> goes · <kbd>Esc</kbd> closes
      </p>
    </form>
  );
}

/** The parent dimmed, the child's name in full (invisible characters shown escaped). */
function Completion({ path }: { path: string }) {
  const cut = path.lastIndexOf('/');
  return (
    <>
      <span className="goto__parent">{escapeHiddenChars(path.slice(0, cut + 1))}</span>
      <span className="goto__name">{escapeHiddenChars(path.slice(cut + 1))}</span>
    </>
  );
}
