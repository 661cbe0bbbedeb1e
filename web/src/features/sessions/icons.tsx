/** The sessions table's sort icon, drawn like ui/icons (16 px grid, currentColor). */
import { Svg, type IconProps } from '../../ui/Svg';

export const SortIcon = ({ dir, ...p }: IconProps & { dir: 'asc' | 'desc' | null }) => (
  <Svg size={12} {...p}>
    {dir === 'asc' ? <path d="M4 10l4-4 4 4" /> : dir === 'desc' ? <path d="M4 6l4 4 4-4" /> : <path d="M5 6.5l3-3 3 3M5 9.5l3 3 3-3" opacity={0.5} />}
  </Svg>
);
