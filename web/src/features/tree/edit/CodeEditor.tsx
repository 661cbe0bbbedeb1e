/**
 * A plain textarea made into a small code editor: line numbers, the broken line marked, Tab
 * indents, Ctrl/Cmd+Enter saves. No library: the browser's own text editing, undo and IME stay
 * intact, and a 1 MiB value costs nothing extra.
 */
import { useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { countLines, insertIndent } from './editorModel';

/** Must match .code-editor's line-height and padding (edit.css). */
const LINE_PX = 19;
const PAD_TOP_PX = 10;

export function CodeEditor({
  value,
  onChange,
  label,
  errorLine,
  wrap,
  onSubmit,
  inputRef,
}: {
  value: string;
  onChange: (value: string) => void;
  label: string;
  /** 1-based line to mark, or null. */
  errorLine: number | null;
  /** Wrap long lines (base64): there are no meaningful line numbers then. */
  wrap: boolean;
  onSubmit: () => void;
  inputRef: RefObject<HTMLTextAreaElement | null>;
}) {
  const gutterRef = useRef<HTMLPreElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const lines = useMemo(() => countLines(value), [value]);
  const numbers = useMemo(() => Array.from({ length: lines }, (_, i) => i + 1).join('\n'), [lines]);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      onSubmit();
      return;
    }
    // Tab indents; Shift+Tab and Esc keep their usual jobs (focus, closing the dialog).
    if (e.key === 'Tab' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      const t = e.currentTarget;
      const next = insertIndent(t.value, t.selectionStart, t.selectionEnd);
      onChange(next.text);
      requestAnimationFrame(() => t.setSelectionRange(next.caret, next.caret));
    }
  };

  return (
    <div className={`code-editor${wrap ? ' is-wrapped' : ''}`}>
      {!wrap && errorLine !== null && (
        <div className="code-editor__band" aria-hidden="true" style={{ top: `${PAD_TOP_PX + (errorLine - 1) * LINE_PX - scrollTop}px` }} />
      )}
      {!wrap && (
        <pre ref={gutterRef} className="code-editor__gutter mono" aria-hidden="true">
          {numbers}
        </pre>
      )}
      <textarea
        ref={inputRef}
        className="code-editor__input mono"
        aria-label={label}
        value={value}
        wrap={wrap ? 'soft' : 'off'}
        spellCheck="false"
        autoCapitalize="off"
        autoComplete="off"
        autoCorrect="off"
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        onScroll={(e) => {
          const top = e.currentTarget.scrollTop;
          if (gutterRef.current) gutterRef.current.scrollTop = top;
          setScrollTop(top);
        }}
      />
    </div>
  );
}
