/** Icons of the admin area, drawn like ui/icons.tsx (16 px grid, currentColor strokes). */
import { Svg, type IconProps } from '../../ui/Svg';

export const AuditIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 1.75h5.5L12.5 4.75v9.5H4z" />
    <path d="M9.25 1.75v3.25h3.25M6 8h4.5M6 10.5h4.5M6 5.5h1.5" />
  </Svg>
);
export const ShareIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6.5 9.5l3-3" />
    <path d="M7.25 4.25l1.3-1.3a2.5 2.5 0 0 1 3.55 3.55l-1.3 1.3M8.75 11.75l-1.3 1.3a2.5 2.5 0 0 1-3.55-3.55l1.3-1.3" />
  </Svg>
);
export const SignOutIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6.5 2.5H4A1.5 1.5 0 0 0 2.5 4v8A1.5 1.5 0 0 0 4 13.5h2.5M10.5 5l3 3-3 3M13.5 8h-7" />
  </Svg>
);
export const PencilIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M10.5 2.75l2.75 2.75-7.5 7.5H3v-2.75z" />
    <path d="M9 4.25l2.75 2.75" />
  </Svg>
);
export const PlusIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 3v10M3 8h10" />
  </Svg>
);
export const TrashIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M2.75 4.25h10.5M6.25 4.25V2.75h3.5v1.5M4.25 4.25l.6 8.6a1.25 1.25 0 0 0 1.25 1.15h3.8a1.25 1.25 0 0 0 1.25-1.15l.6-8.6M6.75 7v4.25M9.25 7v4.25" />
  </Svg>
);
export const DownloadIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 2.5v8M4.75 7.5L8 10.75l3.25-3.25M2.75 13.25h10.5" />
  </Svg>
);
export const UploadIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 10.75v-8M4.75 5.75L8 2.5l3.25 3.25M2.75 13.25h10.5" />
  </Svg>
);
export const MoreIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M3.5 8h.01M8 8h.01M12.5 8h.01" strokeWidth={2.25} />
  </Svg>
);
export const LockIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="3" y="7" width="10" height="7" rx="1.5" />
    <path d="M5.25 7V5a2.75 2.75 0 0 1 5.5 0v2" />
  </Svg>
);
