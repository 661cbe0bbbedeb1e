import type { SortKey } from './sessionTable';

export interface Column {
  key: SortKey;
  label: string;
  hint: string;
  numeric?: boolean;
}

/** The sessions table's columns, in order; the CSS grid template in sessions.css matches them. */
export const COLUMNS: readonly Column[] = [
  { key: 'sessionId', label: 'Session', hint: 'session id, as ZooKeeper prints it' },
  { key: 'client', label: 'Client', hint: 'the client’s ip:port' },
  { key: 'member', label: 'Member', hint: 'the member it is connected to' },
  { key: 'timeout', label: 'Timeout', hint: 'negotiated session timeout', numeric: true },
  { key: 'established', label: 'Established', hint: 'when the connection was established' },
  { key: 'lastResponse', label: 'Last response', hint: 'when the member last answered it' },
  { key: 'rate', label: 'Req/s', hint: 'requests per second it sent since the previous gathering', numeric: true },
  { key: 'latency', label: 'Latency', hint: 'average latency (min/avg/max on hover)', numeric: true },
  { key: 'queued', label: 'Queued', hint: 'requests queued on the member', numeric: true },
  { key: 'ephemerals', label: 'Ephem.', hint: 'ephemeral nodes it owns', numeric: true },
  { key: 'flags', label: 'Flags', hint: 'what looks wrong with it' },
];
