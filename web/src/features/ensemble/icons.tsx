/** Icons of the ensemble, sessions and watches views, drawn like ui/icons (16 px grid, currentColor). */
import { Svg, type IconProps } from '../../ui/Svg';

/** Three members in a ring: the ensemble view. */
export const EnsembleIcon = (p: IconProps) => (
  <Svg {...p}>
    <circle cx="8" cy="3.5" r="1.8" />
    <circle cx="3.5" cy="11.5" r="1.8" />
    <circle cx="12.5" cy="11.5" r="1.8" />
    <path d="M6.9 5L4.6 9.9M9.1 5l2.3 4.9M5.4 11.5h5.2" />
  </Svg>
);

/** Client links: the sessions view. */
export const SessionsIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="2" y="2.5" width="12" height="3" rx="1" />
    <rect x="2" y="6.5" width="12" height="3" rx="1" />
    <rect x="2" y="10.5" width="12" height="3" rx="1" />
    <path d="M4.5 4h.01M4.5 8h.01M4.5 12h.01" />
  </Svg>
);

/** An eye: the watches view. */
export const WatchesIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M1.5 8s2.4-4.5 6.5-4.5S14.5 8 14.5 8 12.1 12.5 8 12.5 1.5 8 1.5 8z" />
    <circle cx="8" cy="8" r="2" />
  </Svg>
);

/** The leader's mark. */
export const Crown = (p: IconProps) => (
  <Svg {...p}>
    <path d="M2.5 11.5l-0.5-6.5 3.5 2.5L8 3l2.5 4.5 3.5-2.5-0.5 6.5z" />
    <path d="M3 13.5h10" />
  </Svg>
);

export const LinkIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6.5 9.5l3-3M7 4.5l1-1a2.8 2.8 0 0 1 4 4l-1 1M9 11.5l-1 1a2.8 2.8 0 0 1-4-4l1-1" />
  </Svg>
);

export const Refresh = (p: IconProps) => (
  <Svg {...p}>
    <path d="M13 3.5v3h-3M3 12.5v-3h3" />
    <path d="M12.6 6.5A5 5 0 0 0 3.6 5M3.4 9.5a5 5 0 0 0 9 1.5" />
  </Svg>
);

export const Minus = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 8h8" />
  </Svg>
);

export const Plus = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 8h8M8 4v8" />
  </Svg>
);

export const SortIcon = ({ dir, ...p }: IconProps & { dir: 'asc' | 'desc' | null }) => (
  <Svg size={12} {...p}>
    {dir === 'asc' ? <path d="M4 10l4-4 4 4" /> : dir === 'desc' ? <path d="M4 6l4 4 4-4" /> : <path d="M5 6.5l3-3 3 3M5 9.5l3 3 3-3" opacity={0.5} />}
  </Svg>
);
