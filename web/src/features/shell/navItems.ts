/**
 * The per-ensemble navigation. Only views that exist are listed (no dead links); a new view is one
 * line here plus its route in App.tsx.
 */
import type { ComponentType } from 'react';
import { TreeIcon } from '../../ui/icons';
import { ensembleUrl } from '../../app/urls/treeUrls';
import { EnsembleIcon, SessionsIcon, WatchesIcon } from './navIcons';
import { LocksIcon } from './navIcons';
import { UpgradesIcon } from './navIcons';
import { AuditIcon } from './navIcons';

export interface NavItem {
  id: string;
  label: string;
  icon: ComponentType<{ size?: number }>;
  href: (ensemble: string) => string;
  /** The path segment after /ensembles/<name>/ that marks this view active. */
  segment: string;
  /** Listed for admins only (the view itself also refuses everyone else). */
  adminOnly?: boolean;
}

export const NAV_ITEMS: readonly NavItem[] = [
  { id: 'tree', label: 'Tree', icon: TreeIcon, href: (e) => `${ensembleUrl(e)}/znodes/`, segment: 'znodes' },
  { id: 'ensemble', label: 'Ensemble', icon: EnsembleIcon, href: (e) => `${ensembleUrl(e)}/members`, segment: 'members' },
  { id: 'sessions', label: 'Sessions', icon: SessionsIcon, href: (e) => `${ensembleUrl(e)}/sessions`, segment: 'sessions' },
  { id: 'watches', label: 'Watches', icon: WatchesIcon, href: (e) => `${ensembleUrl(e)}/watches`, segment: 'watches' },
  { id: 'locks', label: 'Locks', icon: LocksIcon, href: (e) => `${ensembleUrl(e)}/locks`, segment: 'locks' },
  { id: 'upgrades', label: 'Upgrades', icon: UpgradesIcon, href: (e) => `${ensembleUrl(e)}/upgrades`, segment: 'upgrades' },
  // The audit trail and share links span every ensemble, so they live outside /ensembles/<name>.
  { id: 'audit', label: 'Audit', icon: AuditIcon, href: () => '/audit', segment: 'audit', adminOnly: true },
];
