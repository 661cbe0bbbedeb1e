import { Link } from 'react-router-dom';
import { EnsembleSwitcher } from './EnsembleSwitcher';
import { ThemeToggle } from './ThemeToggle';
import { SessionBadge } from '../consoleSession/SessionBadge';
import { ShareButton } from '../share/ShareButton';
import { UserMenu } from '../auth/UserMenu';
import { Keyboard, Menu } from '../../ui/icons';

export function TopBar({
  ensemble,
  known,
  onMenu,
  onShortcuts,
}: {
  ensemble: string;
  /** False for a URL naming an ensemble this server does not have: there is no session to show. */
  known: boolean;
  onMenu: () => void;
  onShortcuts: () => void;
}) {
  return (
    <header className="topbar">
      <button type="button" className="btn btn--icon topbar__menu" aria-label="Open navigation" onClick={onMenu}>
        <Menu />
      </button>
      <Link to="/" className="topbar__brand" aria-label="Keeper home">
        <img src="/favicon.svg" alt="" width={20} height={20} />
        <span>Keeper</span>
      </Link>
      <EnsembleSwitcher current={ensemble} />
      {known && <SessionBadge ensemble={ensemble} />}
      <span className="topbar__spacer" />
      <ShareButton />
      <button type="button" className="btn btn--icon topbar__shortcuts" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={onShortcuts}>
        <Keyboard />
      </button>
      <ThemeToggle />
      <UserMenu />
    </header>
  );
}
