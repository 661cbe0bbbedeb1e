/**
 * ZooKeeper's four-letter words over raw TCP (or TLS, for a TLS-only member's secure client
 * port): write the word, read until the server closes.
 */
import net from 'node:net';
import tls from 'node:tls';

/** PEM contents for a TLS 4lw: the CA to trust, and a client certificate for ssl.clientAuth=need. */
export interface TlsClientPem {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export function fourLetterWord(host: string, port: number, word: string, timeoutMs = 2000, secure: TlsClientPem | null = null): Promise<string> {
  if (!/^[a-z]{4}$/.test(word)) return Promise.reject(new Error(`not a four-letter word: ${JSON.stringify(word)}`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = secure ? tls.connect({ host, port, ...secure }) : net.createConnection({ host, port });
    // A whole-exchange deadline, not an idle timeout: a SIGSTOPped member accepts the
    // connection (the kernel does) and then never answers.
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${word} to ${host}:${port} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on(secure ? 'secureConnect' : 'connect', () => socket.end(word));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${word} to ${host}:${port} failed: ${err.message}`));
    });
    socket.on('close', (hadError) => {
      clearTimeout(timer);
      if (!hadError) resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** "leader" / "follower" / "observer" / "standalone" from a srvr answer; null if not serving. */
export function parseSrvrMode(srvr: string): string | null {
  return /^Mode: (\S+)/m.exec(srvr)?.[1] ?? null;
}
