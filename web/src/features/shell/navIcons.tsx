/** The left nav's view icons, drawn like ui/icons (16 px grid, currentColor). */
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
/** A padlock: the Locks view. */
export const LocksIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="3" y="7" width="10" height="7" rx="1.5" />
    <path d="M5.5 7V5a2.5 2.5 0 0 1 5 0v2M8 10v1.5" />
  </Svg>
);
/** A circular arrow around an upward one: restart, then a newer version. */
export const UpgradesIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M13 8a5 5 0 1 1-1.46-3.54M13 2.5v2.5h-2.5" />
    <path d="M8 10.5v-5M6 7.5l2-2 2 2" />
  </Svg>
);
export const AuditIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 1.75h5.5L12.5 4.75v9.5H4z" />
    <path d="M9.25 1.75v3.25h3.25M6 8h4.5M6 10.5h4.5M6 5.5h1.5" />
  </Svg>
);
