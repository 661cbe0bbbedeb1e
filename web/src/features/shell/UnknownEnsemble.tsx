import { Link } from 'react-router-dom';
import { useEnsembles } from '../../socket/useEnsembles';
import { ensembleUrl } from '../../app/urls/treeUrls';

export function UnknownEnsemble({ name }: { name: string }) {
  const { data: ensembles = [] } = useEnsembles();
  return (
    <div className="empty-state">
      <h1>No ensemble named “{name}”</h1>
      <p className="muted">This server is configured for:</p>
      <ul>
        {ensembles.map((e) => (
          <li key={e.name}>
            <Link className="mono link" to={`${ensembleUrl(e.name)}/znodes/`}>
              {e.name}
            </Link>{' '}
            <span className="muted mono">{e.connectionString}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
