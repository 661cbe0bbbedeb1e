/** The znode actions' icons, drawn like ui/icons (16 px grid, currentColor). */
import { Svg, type IconProps } from '../../ui/Svg';

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
