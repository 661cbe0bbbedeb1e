/**
 * The filter box of a list or table: a search icon inside a monospace input (filters match ids
 * and paths), Escape empties it. `shortcut` marks the view's main filter, the one `/` focuses
 * (useGlobalKeys.focusFilter). The caller's className places it (width, margins).
 */
import { Search } from './icons';
import './filterField.css';

export function FilterField({
  value,
  onChange,
  label,
  placeholder,
  shortcut = false,
  className = '',
}: {
  value: string;
  onChange: (value: string) => void;
  /** The input's accessible name ("Filter sessions"). */
  label: string;
  placeholder: string;
  shortcut?: boolean;
  className?: string;
}) {
  return (
    <label className={`filter-field ${className}`}>
      <Search size={14} aria-hidden="true" />
      <input
        className="input mono"
        type="search"
        placeholder={placeholder}
        aria-label={label}
        {...(shortcut ? { 'data-shortcut': 'filter' } : {})}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && value !== '') {
            // Only an empty box lets Escape through (to close the dialog or drawer around it).
            e.preventDefault();
            onChange('');
          }
        }}
        spellCheck="false"
        autoComplete="off"
      />
    </label>
  );
}
