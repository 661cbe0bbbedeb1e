import { Link, useLocation } from 'react-router-dom';

export function NotFound() {
  const { pathname } = useLocation();
  return (
    <div className="empty-state">
      <h1>Nothing at this address</h1>
      <p className="muted mono">{pathname}</p>
      <Link to="/" className="link">
        Open the first ensemble
      </Link>
    </div>
  );
}
