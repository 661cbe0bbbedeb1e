/**
 * The per-ensemble navigation. Only views that exist are listed (no dead links); a new view is one
 * line here plus its route in App.tsx.
 */
import type { ComponentType } from 'react';
import { TreeIcon } from '../../ui/icons';
import { ensembleUrl } from '../tree/urls';

export interface NavItem {
  id: string;
  label: string;
  icon: ComponentType<{ size?: number }>;
  href: (ensemble: string) => string;
  /** The path segment after /ensembles/<name>/ that marks this view active. */
  segment: string;
}

export const NAV_ITEMS: readonly NavItem[] = [
  { id: 'tree', label: 'Tree', icon: TreeIcon, href: (e) => `${ensembleUrl(e)}/znodes/`, segment: 'znodes' },
];
