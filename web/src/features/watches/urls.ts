import { ensembleUrl } from '../tree/urls';

export function watchesUrl(ensemble: string): string {
  return `${ensembleUrl(ensemble)}/watches`;
}
