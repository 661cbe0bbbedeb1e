import { useNavigate } from 'react-router-dom';
import { useEnsembles } from '../../socket/useEnsembles';
import { ensembleUrl } from '../../app/urls/treeUrls';

/** A native select: keyboard, screen readers and phones get the platform's own picker. */
export function EnsembleSwitcher({ current }: { current: string }) {
  const { data: ensembles = [] } = useEnsembles();
  const navigate = useNavigate();
  const names = ensembles.map((e) => e.name);
  if (!names.includes(current)) names.unshift(current);
  const connection = ensembles.find((e) => e.name === current)?.connectionString;
  return (
    <label className="switcher" title={connection ? `${current}: ${connection}` : current}>
      <span className="visually-hidden">Ensemble</span>
      <select className="switcher__select mono" value={current} onChange={(e) => navigate(`${ensembleUrl(e.target.value)}/znodes/`)}>
        {names.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}
