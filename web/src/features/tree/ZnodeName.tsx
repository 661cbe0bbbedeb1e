/**
 * A znode name or path as an operator must see it: hidden characters (bidi overrides, zero-width,
 * controls) written out as marks, and, where space is short, cut in the middle so the end (a
 * sequential node's counter) always shows.
 */
import { splitHiddenChars } from '../../lib/invisibleChars';
import { middleCut } from './nameDisplay';

/** Text with its hidden characters shown as `\u202E` marks. */
export function Escaped({ text }: { text: string }) {
  return (
    <>
      {splitHiddenChars(text).map((part, i) =>
        part.escaped ? (
          <span key={i} className="hidden-char" title="A hidden character in the name (bidi override, zero-width or control)">
            {part.text}
          </span>
        ) : (
          part.text
        ),
      )}
    </>
  );
}

/** One name, cut in the middle when its row is too narrow. */
export function ZnodeName({ name, className }: { name: string; className?: string }) {
  const { head, tail } = middleCut(name);
  return (
    <span className={`zname${className ? ` ${className}` : ''}`}>
      <span className="zname__head">
        <Escaped text={head} />
      </span>
      {tail !== '' && (
        <span className="zname__tail">
          <Escaped text={tail} />
        </span>
      )}
    </span>
  );
}
