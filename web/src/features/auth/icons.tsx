/** The user menu's icon, drawn like ui/icons (16 px grid, currentColor). */
import { Svg, type IconProps } from '../../ui/Svg';

export const SignOutIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6.5 2.5H4A1.5 1.5 0 0 0 2.5 4v8A1.5 1.5 0 0 0 4 13.5h2.5M10.5 5l3 3-3 3M13.5 8h-7" />
  </Svg>
);
