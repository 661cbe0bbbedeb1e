import { useTheme } from '../theme/useTheme';
import { Moon, Sun } from './icons';

/** `labelled`: with the theme it switches to in words (the phone's navigation drawer, where the top bar has no room for it). */
export function ThemeToggle({ className = 'btn btn--icon', labelled = false }: { className?: string; labelled?: boolean }) {
  const { theme, toggle } = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button type="button" className={className} onClick={toggle} aria-label={`Switch to ${next} theme`} title={`Switch to ${next} theme`}>
      {theme === 'dark' ? <Sun /> : <Moon />}
      {labelled && <span>{next === 'light' ? 'Light theme' : 'Dark theme'}</span>}
    </button>
  );
}
