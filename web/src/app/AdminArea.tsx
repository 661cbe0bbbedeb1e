/**
 * The admin area (/audit, /audit/share-links, /audit/replicas): one header with tabs, shown to admins only. Anyone
 * else who follows a link here is told plainly that it is for admins, not shown an empty table.
 */
import type { ReactNode } from 'react';
import { NavLink } from 'react-router-dom';
import { ViewHeader } from './ViewHeader';
import { useMe } from './me';
import './admin.css';

export function AdminArea({ title, meta, aside, children }: { title: string; meta?: ReactNode; aside?: ReactNode; children: ReactNode }) {
  const { data: me } = useMe();
  if (me?.role !== 'admin') {
    return (
      <div className="empty-state">
        <h1>For admins only</h1>
        <p className="muted">
          The audit trail, share links and replicas are shown to admins. You are signed in as {me?.name ?? 'nobody'} ({me?.role ?? 'no role'}).
        </p>
      </div>
    );
  }
  return (
    <div className="admin-view">
      <ViewHeader title={title} aside={aside}>
        {meta}
      </ViewHeader>
      <nav className="admin-tabs" aria-label="Admin">
        <NavLink to="/audit" end className={({ isActive }) => `admin-tab${isActive ? ' is-active' : ''}`}>
          Audit trail
        </NavLink>
        <NavLink to="/audit/share-links" className={({ isActive }) => `admin-tab${isActive ? ' is-active' : ''}`}>
          Share links
        </NavLink>
        <NavLink to="/audit/replicas" className={({ isActive }) => `admin-tab${isActive ? ' is-active' : ''}`}>
          Replicas
        </NavLink>
      </nav>
      <div className="admin-view__body">{children}</div>
    </div>
  );
}
