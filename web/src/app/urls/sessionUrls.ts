import { ensembleUrl } from './treeUrls';

export function sessionsUrl(ensemble: string): string {
  return `${ensembleUrl(ensemble)}/sessions`;
}

/** /ensembles/<name>/sessions/0x1000a3b52c40001: the id as ZooKeeper prints it. */
export function sessionUrl(ensemble: string, sessionId: string): string {
  return `${sessionsUrl(ensemble)}/${encodeURIComponent(sessionId)}`;
}
