/**
 * npm run sandbox -- start|stop|status [--port-offset N] [--state-dir D] [--size N]
 * For people and CI debugging: the same sandbox `npm start` uses, without Keeper.
 * `start` stays in the foreground until Ctrl-C; `stop` ends a sandbox another
 * terminal started (and any JVM a dead launcher left behind).
 */
import { parseArgs } from 'node:util';
import { defaultStateDir } from '../server/src/config/cli.js';
import { fourLetterWord, memberPorts, parseSrvrMode, SandboxEnsemble } from './sandbox/index.js';
import { onOrphaned } from './lib/parentWatch.js';
import { isAlive } from './sandbox/procfs.js';
import { readOwner, sandboxJvms } from './sandbox/stateLock.js';

const USAGE = `Usage: npm run sandbox -- <start|stop|status> [options]
  start    launch the ensemble and stay in the foreground (Ctrl-C stops it)
  stop     stop the sandbox running from that state dir
  status   ask every member for its mode (srvr)
Options:
  --port-offset <n>   added to every port (default 0: clients on 2191..)
  --state-dir <dir>   default ${defaultStateDir(process.env)}
  --size <n>          members (default 3)`;

function fail(message: string): never {
  console.error(`sandbox: ${message}`);
  process.exit(1);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        'port-offset': { type: 'string', default: '0' },
        'state-dir': { type: 'string', default: defaultStateDir(process.env) },
        size: { type: 'string', default: '3' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`);
  }
})();

const portOffset = Number(values['port-offset']);
const size = Number(values.size);
const stateDir = values['state-dir'];
if (!Number.isInteger(portOffset) || portOffset < 0) fail(`--port-offset must be a non-negative integer`);
if (!Number.isInteger(size) || size < 1) fail(`--size must be a positive integer`);

async function start(): Promise<void> {
  const t0 = Date.now();
  const log = (line: string) => console.log(`[sandbox +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}`);
  log(`starting ${size} members, state in ${stateDir}`);
  const ensemble = await SandboxEnsemble.start({ stateDir, portOffset, size, log });
  console.log(`\nZooKeeper sandbox serving: ${ensemble.connectionString}`);
  for (const m of ensemble.members) {
    console.log(`  member ${m.id}: pid ${m.pid}, client ${m.clientPort}, admin http://127.0.0.1:${m.adminPort}/commands, log ${stateDir}/member-${m.id}.log`);
  }
  console.log('Ctrl-C to stop.');
  // Member JVMs do not hold the event loop open; this does, until a signal.
  const keepAlive = setInterval(() => {}, 1 << 30);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    await ensemble.close();
    clearInterval(keepAlive);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  onOrphaned(() => void shutdown('parent process gone'));
}

async function stop(): Promise<void> {
  const owner = readOwner(stateDir);
  if (owner !== null && isAlive(owner)) {
    console.log(`stopping the sandbox launcher pid ${owner} (SIGTERM)`);
    process.kill(owner, 'SIGTERM');
    const deadline = Date.now() + 15_000;
    while (isAlive(owner) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(owner)) fail(`launcher pid ${owner} did not exit within 15 s`);
  }
  const left = sandboxJvms(stateDir);
  for (const pid of left) {
    console.log(`killing left-over member JVM pid ${pid}`);
    process.kill(pid, 'SIGKILL');
  }
  if (owner === null && left.length === 0) console.log(`no sandbox running from ${stateDir}`);
}

async function status(): Promise<void> {
  const owner = readOwner(stateDir);
  console.log(`state dir ${stateDir}: ${owner !== null && isAlive(owner) ? `owned by launcher pid ${owner}` : 'no launcher running'}`);
  let serving = 0;
  for (let id = 1; id <= size; id++) {
    const { clientPort } = memberPorts(id, portOffset);
    let state: string;
    try {
      const answer = await fourLetterWord('127.0.0.1', clientPort, 'srvr', 1500);
      const mode = parseSrvrMode(answer);
      if (mode) serving++;
      state = mode ?? answer.trim();
    } catch (err) {
      state = /timed out/.test((err as Error).message) ? 'no answer (hung or paused?)' : 'down';
    }
    console.log(`  member ${id} 127.0.0.1:${clientPort}: ${state}`);
  }
  process.exitCode = serving === size ? 0 : 1;
}

const command = positionals[0];
if (values.help) console.log(USAGE);
else if (positionals.length !== 1) fail(`expected one command\n${USAGE}`);
else if (command === 'start') await start().catch((err: Error) => fail(err.message));
else if (command === 'stop') await stop();
else if (command === 'status') await status();
else fail(`unknown command "${command}"\n${USAGE}`);
