/**
 * The rows of the children list. Up to PLAIN_ROWS they are plain rows in the page's flow; a
 * longer list (a queue of 100,000 tasks) is virtualized (VirtualChildrenRows, TanStack Virtual),
 * whose code arrives only when such a list is first shown: most znodes have a few children, and
 * the first page does without it.
 */
import { Link } from 'react-router-dom';
import type { CSSProperties, RefObject } from 'react';
import { joinPath } from '@keeper/shared';
import { escapeHiddenChars } from '../../lib/invisibleChars';
import { lazyNamed } from '../../lib/lazyNamed';
import { LazyPart } from '../../ui/LazyPart';
import { ZnodeName } from './ZnodeName';
import { znodeUrl } from '../../app/urls/treeUrls';

export const ROW_HEIGHT = 26;
/** Lists up to this long render every row; a DOM of 500 short rows is still quick. */
export const PLAIN_ROWS = 500;

const VirtualChildrenRows = lazyNamed(() => import('./VirtualChildrenRows'), 'VirtualChildrenRows');

export interface ChildrenRowsProps {
  ensemble: string;
  path: string;
  names: readonly string[];
  scrollRef: RefObject<HTMLDivElement | null>;
}

export function ChildrenRows(props: ChildrenRowsProps) {
  if (props.names.length <= PLAIN_ROWS) return <PlainRows {...props} />;
  return (
    <LazyPart>
      <VirtualChildrenRows {...props} />
    </LazyPart>
  );
}

function PlainRows({ ensemble, path, names }: ChildrenRowsProps) {
  return (
    <div role="list" aria-label="Children" className="children__list children__list--plain">
      {names.map((name) => (
        <ChildRow key={name} ensemble={ensemble} path={path} name={name} />
      ))}
    </div>
  );
}

export function ChildRow({ ensemble, path, name, style }: { ensemble: string; path: string; name: string; style?: CSSProperties }) {
  return (
    <div role="listitem" className="children__row" style={{ height: ROW_HEIGHT, ...style }}>
      <Link to={znodeUrl(ensemble, joinPath(path, name))} className="children__link mono" title={escapeHiddenChars(joinPath(path, name))}>
        <ZnodeName name={name} />
      </Link>
    </div>
  );
}
