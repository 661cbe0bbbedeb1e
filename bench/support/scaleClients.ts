/**
 * A child process of bench/scale.ts holding many "browsers": WebSockets signed in each with its
 * own session cookie, each following the same znodes, each pinging once a second as the web
 * does. While recording it notes, for every frame that carries the written znode's new value,
 * how long after the write it arrived (the writer stamps its clock into the value). Frames are
 * not parsed as JSON: the value is found by its marker, so that reading a thousand sockets costs
 * this process as little as it can and the figures are Keeper's.
 *
 * Commands over IPC: open {url, cookies, paths}, record {on}, report, close.
 */
import WebSocket from 'ws';
import { PROTOCOL_VERSION } from '@keeper/shared';

type Command =
  { cmd: 'open'; url: string; cookies: string[]; paths: string[]; ensemble: string } | { cmd: 'record'; on: boolean } | { cmd: 'report' } | { cmd: 'close' };

const MARK = Buffer.from('"value":"w');
const clock = () => performance.timeOrigin + performance.now();

let sockets: WebSocket[] = [];
let recording = false;
let samples: number[] = [];
let frames = 0;
let errors: string[] = [];
let pinger: NodeJS.Timeout | null = null;

function reply(message: unknown): void {
  process.send?.(message);
}

/** The write's stamp in a value `w<seq>@<ms>`, or null when the frame carries no written value. */
function stampIn(data: Buffer): number | null {
  const at = data.indexOf(MARK);
  if (at < 0) return null;
  const start = data.indexOf(0x40 /* @ */, at + MARK.length);
  const end = data.indexOf(0x22 /* " */, start);
  if (start < 0 || end < 0) return null;
  return Number(data.toString('latin1', start + 1, end));
}

function open(command: Extract<Command, { cmd: 'open' }>): void {
  const { url, cookies, paths, ensemble } = command;
  let ready = 0;
  for (const cookie of cookies) {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`, { headers: { cookie }, perMessageDeflate: false });
    sockets.push(socket);
    let states = 0;
    let welcomed = false;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', protocolVersion: PROTOCOL_VERSION })));
    socket.on('message', (data: Buffer) => {
      const at = clock();
      frames++;
      if (!welcomed) {
        welcomed = true;
        for (const path of paths) socket.send(JSON.stringify({ type: 'subscribe', topic: 'znode', ensemble, params: { path } }));
        return;
      }
      if (states < paths.length) {
        // Until every znode's first state came: count them (small frames, parsed once).
        const message = JSON.parse(data.toString('utf8')) as { type: string; message?: string; events?: { event: { kind: string } }[] };
        if (message.type === 'error') errors.push(message.message ?? 'error');
        states += (message.events ?? []).filter((e) => e.event.kind === 'state').length;
        if (states >= paths.length) {
          ready++;
          if (ready === cookies.length) reply({ ready });
        }
        return;
      }
      if (!recording) return;
      const stamp = stampIn(data);
      if (stamp !== null) samples.push(at - stamp);
      else if (data.indexOf('"type":"error"') >= 0 || data.indexOf('"type":"resync"') >= 0) errors.push(data.toString('utf8', 0, 200));
    });
    socket.on('close', (code, reason) => {
      if (code !== 1000 && code !== 1005) errors.push(`closed ${code} ${reason.toString()}`);
    });
    socket.on('error', (error) => errors.push(error.message));
  }
  // Once a second per socket, spread over the second, as each page's heartbeat does.
  let next = 0;
  pinger = setInterval(() => {
    const share = Math.ceil(sockets.length / 20);
    for (let i = 0; i < share && sockets.length > 0; i++, next++) {
      const socket = sockets[next % sockets.length]!;
      if (socket.readyState === WebSocket.OPEN) socket.send('{"type":"ping"}');
    }
  }, 50);
}

process.on('message', (command: Command) => {
  switch (command.cmd) {
    case 'open':
      return open(command);
    case 'record':
      recording = command.on;
      if (recording) {
        samples = [];
        frames = 0;
        errors = [];
      }
      return reply({ recording });
    case 'report':
      return reply({ samples, frames, errors: errors.slice(0, 5), errorCount: errors.length });
    case 'close':
      if (pinger) clearInterval(pinger);
      pinger = null;
      for (const socket of sockets) socket.terminate();
      sockets = [];
      return reply({ closed: true });
  }
});
