import { NavLink } from 'react-router-dom';
import { NAV_ITEMS } from './navItems';
import { useEnsembles } from '../../socket/useEnsembles';
import { useIsAdmin } from '../auth/me';

export function LeftNav({ ensemble, onNavigate }: { ensemble: string; onNavigate?: () => void }) {
  const connection = useEnsembles().data?.find((e) => e.name === ensemble)?.connectionString;
  const admin = useIsAdmin();
  return (
    <nav className="leftnav" aria-label={`${ensemble} views`}>
      <ul>
        {NAV_ITEMS.filter((item) => admin || !item.adminOnly).map((item) => (
          <li key={item.id}>
            <NavLink
              to={item.href(ensemble)}
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
