/** The Upgrades view's icon, drawn like ui/icons (16 px grid, currentColor). */
import { Svg, type IconProps } from '../../ui/Svg';

/** A circular arrow around an upward one: restart, then a newer version. */
export const UpgradesIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M13 8a5 5 0 1 1-1.46-3.54M13 2.5v2.5h-2.5" />
    <path d="M8 10.5v-5M6 7.5l2-2 2 2" />
  </Svg>
);
