import { Link } from 'react-router-dom';
import { EnsembleSwitcher } from './EnsembleSwitcher';
import { ThemeToggle } from '../../ui/ThemeToggle';
import { SessionBadge } from '../consoleSession/SessionBadge';
import { ShareButton } from '../share/ShareButton';
import { UserMenu } from '../auth/UserMenu';
import { Keyboard, Menu, Search } from '../../ui/icons';

export function TopBar({
  ensemble,
  known,
  onMenu,
  onShortcuts,
  onGoTo,
}: {
  ensemble: string;
  /** False for a URL naming an ensemble this server does not have: there is no session to show. */
  known: boolean;
  onMenu: () => void;
  onShortcuts: () => void;
  onGoTo: () => void;
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
      {known && (
        <button type="button" className="btn btn--outline topbar__goto" aria-label="Go to path" title="Go to a znode path (g)" onClick={onGoTo}>
          <Search />
          <span className="topbar__goto-label">Go to path</span>
          <kbd className="topbar__goto-key">g</kbd>
        </button>
      )}
      <ShareButton />
      <button type="button" className="btn btn--icon topbar__shortcuts" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={onShortcuts}>
        <Keyboard />
      </button>
      <ThemeToggle className="btn btn--icon topbar__theme" />
      <UserMenu />
    </header>
  );
}
