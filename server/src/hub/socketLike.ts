/**
 * The part of a `ws` WebSocket a ClientConnection uses: small enough that tests drive a
 * connection with an in-memory socket, no server and no ZooKeeper.
 */
export interface SocketLike {
  readonly readyState: number;
  readonly OPEN: number;
  /**
   * Sends one text frame (`binary: false`: the bytes are UTF-8 JSON). `written` is called once
   * the bytes are handed to the operating system, or with an error when they never will be.
   * The same Buffer may be sent to many sockets: it is never modified.
   */
  send(data: Buffer, options: { binary: false }, written: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  /** Cuts the connection without the closing handshake. */
  terminate(): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
