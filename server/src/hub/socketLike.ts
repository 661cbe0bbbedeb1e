/**
 * The part of a `ws` WebSocket a ClientConnection uses: small enough that tests drive a
 * connection with an in-memory socket, no server and no ZooKeeper.
 */
export interface SocketLike {
  readonly readyState: number;
  readonly OPEN: number;
  /** Bytes queued and not yet handed to the operating system. */
  readonly bufferedAmount: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  /** Cuts the connection without the closing handshake. */
  terminate(): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
