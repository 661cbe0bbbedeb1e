/**
 * One request to one member, over raw TCP (a four-letter word) or HTTP (the AdminServer),
 * with a deadline on the WHOLE exchange: a SIGSTOPped member accepts the connection (the
 * kernel does) and then never answers, so an idle timeout would not fire in time. Never
 * rejects: every outcome is a value, and "refused" is told apart from "no answer" because
 * the FAQ's two kinds of failure (dead daemon vs hung or partitioned) mean different things.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { stallAwareDeadline } from './stallAwareDeadline.js';
import { tlsFailureSentence, type TlsMaterial } from '../zk/tlsMaterial.js';

/**
 * `closed`: the member accepted the connection, then reset or closed it before answering a
 * byte. That is what ZooKeeper does to a client address at its maxClientCnxns (NIO resets,
 * Netty closes), so it is told apart from other failures: it does not mean "down".
 */
export type WireFailureKind = 'refused' | 'timeout' | 'closed' | 'failed';

export type WireResult = { ok: true; text: string; status?: number } | { ok: false; kind: WireFailureKind; message: string };

/** Big enough for dump/wchp of a large ensemble; beyond it the answer is dropped, not buffered. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

function failure(error: NodeJS.ErrnoException, what: string, bytesReceived = 0): WireResult {
  switch (error.code) {
    case 'ECONNREFUSED':
      return { ok: false, kind: 'refused', message: `${what}: connection refused` };
    case 'ETIMEDOUT':
      return { ok: false, kind: 'timeout', message: `${what}: connect timed out` };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { ok: false, kind: 'failed', message: `${what}: host not found (${error.code})` };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { ok: false, kind: 'timeout', message: `${what}: no route to host (${error.code})` };
    case 'ECONNRESET':
    case 'EPIPE':
      if (bytesReceived === 0) return { ok: false, kind: 'closed', message: `${what}: connection closed at once, without an answer` };
      return { ok: false, kind: 'failed', message: `${what}: connection reset before a full answer` };
    default:
      return { ok: false, kind: 'failed', message: `${what}: ${error.code ?? error.message}` };
  }
}

/** A TLS failure in words (a certificate, a handshake), else the usual classification. */
function secureFailure(
  error: NodeJS.ErrnoException,
  what: string,
  address: string,
  handshakeDone: boolean,
  material: TlsMaterial,
  bytesReceived = 0,
): WireResult {
  if (error.code === 'ECONNREFUSED' || error.code === 'ETIMEDOUT' || error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH')
    return failure(error, what, bytesReceived);
  const sentence = tlsFailureSentence(error, address, handshakeDone, material.settings);
  return sentence ? { ok: false, kind: 'failed', message: `${what}: ${sentence}` } : failure(error, what, bytesReceived);
}

/**
 * Writes the word, reads until the member closes the connection (that is how 4lw answers end).
 * With `secure`, over TLS to the member's secureClientPort (4lw answer there too), the word sent
 * once the handshake is done and the certificate checked.
 */
export function fourLetterWord(host: string, port: number, word: string, deadlineMs: number, secure: TlsMaterial | null = null): Promise<WireResult> {
  const what = `${word} to ${host}:${port}`;
  if (!/^[a-z]{4}$/.test(word)) return Promise.resolve({ ok: false, kind: 'failed', message: `not a four-letter word: ${JSON.stringify(word)}` });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let handshakeDone = false;
    let socket: net.Socket;
    try {
      socket = secure ? tls.connect(secure.connectOptions(host, port)) : net.createConnection({ host, port });
    } catch (error) {
      // The TLS files could not be read or used: said as they are, nothing was sent.
      resolve({ ok: false, kind: 'failed', message: `${what}: ${(error as Error).message}` });
      return;
    }
    const finish = (result: WireResult) => {
      if (settled) return;
      settled = true;
      deadline.clear();
      socket.destroy();
      resolve(result);
    };
    // Keeper's own stall is not the member's: see stallAwareDeadline.
    const deadline = stallAwareDeadline(() => finish({ ok: false, kind: 'timeout', message: `${what}: no answer within ${deadlineMs} ms` }), deadlineMs);
    socket.on(secure ? 'secureConnect' : 'connect', () => {
      handshakeDone = true;
      socket.end(word);
    });
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) return finish({ ok: false, kind: 'failed', message: `${what}: answer larger than ${MAX_ANSWER_BYTES} bytes` });
      chunks.push(chunk);
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(secure ? secureFailure(error, what, `${host}:${port}`, handshakeDone, secure, size) : failure(error, what, size)),
    );
    // An empty answer stays an answer (wchp with no watches is one); callers that know better say so.
    socket.on('close', () => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
  });
}

/** GET /commands/<name> on the AdminServer; any status is an answer (a 500 page is one). With `secure`, over https. */
export function adminCommand(host: string, port: number, command: string, deadlineMs: number, secure: TlsMaterial | null = null): Promise<WireResult> {
  const what = `AdminServer ${command} on ${host}:${port}`;
  let tlsOptions: tls.ConnectionOptions | null = null;
  try {
    tlsOptions = secure ? secure.connectOptions(host, port) : null;
  } catch (error) {
    return Promise.resolve({ ok: false, kind: 'failed', message: `${what}: ${(error as Error).message}` });
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: WireResult) => {
      if (settled) return;
      settled = true;
      deadline.clear();
      request.destroy();
      resolve(result);
    };
    const options = { host, port, path: `/commands/${encodeURIComponent(command)}`, agent: false, headers: { accept: 'application/json' } };
    const request = (tlsOptions ? https : http).get(tlsOptions ? { ...options, ...tlsOptions, host, port } : options, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) return finish({ ok: false, kind: 'failed', message: `${what}: answer larger than ${MAX_ANSWER_BYTES} bytes` });
        chunks.push(chunk);
      });
      response.on('end', () => finish({ ok: true, status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', (error: NodeJS.ErrnoException) => finish(failure(error, what)));
    });
    // Keeper's own stall is not the member's: see stallAwareDeadline.
    const deadline = stallAwareDeadline(() => finish({ ok: false, kind: 'timeout', message: `${what}: no answer within ${deadlineMs} ms` }), deadlineMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(secure ? secureFailure(error, what, `${host}:${port}`, false, secure) : failure(error, what)));
  });
}
