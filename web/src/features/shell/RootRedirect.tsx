import { Navigate } from 'react-router-dom';
import { useEnsembles } from '../../socket/useEnsembles';
import { znodeUrl } from '../../app/urls/treeUrls';

/** `/` opens the first configured ensemble's root znode. */
export function RootRedirect() {
  const { data: ensembles, error } = useEnsembles();
  const first = ensembles?.[0];
  if (first) return <Navigate to={znodeUrl(first.name, '/')} replace />;
  return (
    <div className="empty-state">
      <h1>Keeper</h1>
      {error ? (
        <p role="alert">Cannot load the ensembles: {error.message}. Is the Keeper server running?</p>
      ) : ensembles ? (
        <p>No ensembles are configured. Add one to the server configuration and restart it.</p>
      ) : (
        <p className="muted">Loading ensembles…</p>
      )}
    </div>
  );
}
