import type { ReactNode } from 'react';
import { NavLink } from 'react-router-dom';
import { NAV_ITEMS } from './navItems';
import { useEnsembles } from '../../socket/useEnsembles';
import { useMe } from '../../app/me';
import { holderMayOpen } from '../share/shareLinks';
import { znodeUrl } from '../../app/urls/treeUrls';

/** `extra`: controls the drawer carries on a narrow phone, where the top bar has no room for them. */
export function LeftNav({ ensemble, onNavigate, extra }: { ensemble: string; onNavigate?: () => void; extra?: ReactNode }) {
  const connection = useEnsembles().data?.find((e) => e.name === ensemble)?.connectionString;
  const me = useMe().data;
  const admin = me?.role === 'admin';
  // A share-link holder is offered only what its link reaches, and the tree opens at its scope.
  const scope = me?.shareLink?.scope;
  const items = NAV_ITEMS.filter((item) => (admin || !item.adminOnly) && (!scope || holderMayOpen(scope, item.id)));
  const hrefOf = (item: (typeof NAV_ITEMS)[number]) => (scope && item.id === 'tree' ? znodeUrl(ensemble, scope.root) : item.href(ensemble));
  return (
    <nav className="leftnav" aria-label={`${ensemble} views`}>
      <ul>
        {items.map((item) => (
          <li key={item.id}>
            <NavLink
              to={hrefOf(item)}
              className={({ isActive }) => `leftnav__item${isActive ? ' is-active' : ''}`}
              // Active for every path inside the view, e.g. any znode under /znodes.
              end={false}
              onClick={onNavigate}
            >
              <item.icon size={16} />
              <span className="leftnav__label">{item.label}</span>
            </NavLink>
          </li>
        ))}
      </ul>
      {extra && <div className="leftnav__extra">{extra}</div>}
      {connection && (
        <p className="leftnav__hint mono" title={`${ensemble}: ${connection}`}>
          {connection.split(',').map((member) => (
            <span key={member}>{member}</span>
          ))}
        </p>
      )}
    </nav>
  );
}
