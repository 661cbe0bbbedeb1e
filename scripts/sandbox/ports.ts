/** Port layout of the sandbox and the "is it free?" check done before any JVM is launched. */
import net from 'node:net';
import { describeProcess, pidListeningOn } from './procfs.js';

const BASE = { client: 2190, peer: 2880, election: 3880, admin: 8090 } as const;
export const MAX_SIZE = 9;

export interface MemberPorts {
  clientPort: number;
  peerPort: number;
  electionPort: number;
  adminPort: number;
}

export function memberPorts(id: number, portOffset: number): MemberPorts {
  return {
    clientPort: BASE.client + id + portOffset,
    peerPort: BASE.peer + id + portOffset,
    electionPort: BASE.election + id + portOffset,
    adminPort: BASE.admin + id + portOffset,
  };
}

/** The largest offset that keeps the highest port (admin of the last member) <= 65535. */
export function maxPortOffset(size: number): number {
  return 65535 - (BASE.admin + size);
}

export function allPorts(p: MemberPorts): number[] {
  return [p.clientPort, p.peerPort, p.electionPort, p.adminPort];
}

/** Binding is the only reliable test: it also catches listeners on 0.0.0.0 and [::]. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly pid: number | null,
  ) {
    const by = pid === null ? '' : ` (by pid ${pid}${describeProcess(pid)})`;
    super(`port ${port} is in use${by}; stop it or use --port-offset`);
    this.name = 'PortInUseError';
  }
}

/** Throws a PortInUseError for the first busy port, naming the holder when /proc tells. */
export async function assertPortsFree(ports: number[]): Promise<void> {
  const free = await Promise.all(ports.map((p) => isPortFree(p)));
  const busy = ports.find((_, i) => !free[i]);
  if (busy !== undefined) throw new PortInUseError(busy, pidListeningOn(busy));
}
