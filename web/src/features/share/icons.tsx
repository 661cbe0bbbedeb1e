/** The share button's icon, drawn like ui/icons (16 px grid, currentColor). */
import { Svg, type IconProps } from '../../ui/Svg';

export const ShareIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6.5 9.5l3-3" />
    <path d="M7.25 4.25l1.3-1.3a2.5 2.5 0 0 1 3.55 3.55l-1.3 1.3M8.75 11.75l-1.3 1.3a2.5 2.5 0 0 1-3.55-3.55l1.3-1.3" />
  </Svg>
);
