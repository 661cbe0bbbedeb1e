/**
 * URLs of the ensemble view. A member's address ("127.0.0.1:2192") stays readable in the URL:
 * ':' is legal inside a path segment, and a link pasted in an incident channel should say which
 * member it is about.
 */
import { ensembleUrl } from './treeUrls';

/** Percent-encodes a path segment but keeps ':' (host:port, IPv6 brackets stay encoded). */
export function readableSegment(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ':');
}

export function membersUrl(ensemble: string): string {
  return `${ensembleUrl(ensemble)}/members`;
}

export function memberUrl(ensemble: string, address: string): string {
  return `${membersUrl(ensemble)}/${readableSegment(address)}`;
}

/** An ensemble view an alert points to for its evidence (the request herd: the sessions view). */
export function ensembleViewUrl(ensemble: string, view: 'sessions' | 'watches' | 'locks' | 'upgrades'): string {
  return `${ensembleUrl(ensemble)}/${view}`;
}

/** The resize page (from the sizing view), or one resize by its id: a link pasted in an incident channel opens that workflow. */
export function resizeUrl(ensemble: string, id?: string): string {
  return `${membersUrl(ensemble)}/resize${id ? `/${encodeURIComponent(id)}` : ''}`;
}
