/**
 * The 40 px header every ensemble-level view starts with (like the tree's breadcrumb bar): the
 * view's title, a few words of context, and on the right whether what follows is live.
 */
import type { ReactNode } from 'react';
import { AsOf } from './freshness/AsOf';
import type { Freshness } from './freshness/freshness';
import './view.css';

export function ViewHeader({
  title,
  children,
  freshness,
  liveHint,
  aside,
}: {
  title: string;
  children?: ReactNode;
  /** Omit for views that are snapshots (they say how old they are themselves). */
  freshness?: Freshness;
  liveHint?: string;
  aside?: ReactNode;
}) {
  return (
    <header className="view-header">
      <h1 className="view-header__title">{title}</h1>
      {children && <span className="view-header__meta">{children}</span>}
      <span className="view-header__spacer" />
      {aside}
      {freshness &&
        (freshness.live ? (
          <span className="status tone-live view-header__live" title={liveHint}>
            live
          </span>
        ) : (
          <AsOf freshness={freshness} />
        ))}
    </header>
  );
}
