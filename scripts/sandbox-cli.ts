/**
 * npm run sandbox -- <command> [member] [options]
 * For people, CI debugging and fault drills: the same sandbox `npm start` uses, without
 * Keeper. `start` stays in the foreground until Ctrl-C; the member drills (kill 2, freeze 2,
 * restart 2, ...) ask the launcher that owns the state dir (this `start` or `npm start`) to
 * act, so the members it restarts are still its own and its Ctrl-C stops them.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { defaultStateDir } from '../server/src/config/cli.js';
import { SandboxEnsemble } from './sandbox/index.js';
import { runAdd, runDrill } from './sandbox/controlClient.js';
import { onOrphaned } from './lib/parentWatch.js';
import { isAlive } from './sandbox/procfs.js';
import { readOwner, sandboxJvms } from './sandbox/stateLock.js';
import { formatStatus, sandboxStatus } from './sandbox/status.js';
import { DRILL_OPS, type DrillOp } from './sandbox/types.js';

const USAGE = `Usage: npm run sandbox -- <command> [member] [options]
The ensemble:
  start              launch the ensemble and stay in the foreground (Ctrl-C stops it)
  stop               stop the sandbox running from that state dir
  status             each member's process (as its launcher knows it) and srvr mode
Fault drills on one member, run by the launcher (\`npm start\` or \`sandbox -- start\`):
  kill <id>          SIGKILL: a dead daemon; clients get "connection refused"
  freeze <id>        SIGSTOP: a hung server; connections open, nothing is answered,
                     clients move on only when their session timeout runs out
  thaw <id>          SIGCONT: the frozen member carries on where it stopped
  stop <id>          SIGTERM: a clean shutdown (SIGKILL after 5 s)
  start <id>         start a killed or stopped member (thaws a frozen one); waits until it serves
  restart <id>       stop, then start; waits until it serves again (a new pid)
Resizing (the sandbox runs with reconfigEnabled=true and a super user, password in <state-dir>/super.password):
  add <id>           start member <id> as a learner ready to be added: its zoo.cfg and dynamic config
                     list the current members plus itself; prints the line for \`reconfig -add\`
                     (--observer or --role observer: as an observer). Members a reconfig removes are
                     stopped by the sandbox.
Options:
  --port-offset <n>   added to every port (default 0: clients on 2191..)
  --state-dir <dir>   default ${defaultStateDir(process.env)}
  --size <n>          members (default 3)
  --timeout <s>       how long start <id> and restart <id> may take (default 60)`;

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
        timeout: { type: 'string', default: '60' },
        observer: { type: 'boolean', default: false },
        // The same as --observer, in the words of a server line (Keeper's startCommand fills {role}).
        role: { type: 'string', default: 'participant' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`);
  }
})();

const portOffset = Number(values['port-offset']);
const size = Number(values.size);
const timeoutS = Number(values.timeout);
const stateDir = values['state-dir'];
if (!Number.isInteger(portOffset) || portOffset < 0) fail(`--port-offset must be a non-negative integer`);
if (!Number.isInteger(size) || size < 1) fail(`--size must be a positive integer`);
if (!Number.isFinite(timeoutS) || timeoutS < 1 || timeoutS > 600) fail(`--timeout must be a number of seconds from 1 to 600`);

async function start(): Promise<void> {
  const t0 = Date.now();
  const log = (line: string) => console.log(`[sandbox +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}`);
  log(`starting ${size} members, state in ${stateDir}`);
  const ensemble = await SandboxEnsemble.start({ stateDir, portOffset, size, log, reconfig: { superPassword: randomBytes(18).toString('base64url') } });
  console.log(`\nZooKeeper sandbox serving: ${ensemble.connectionString}`);
  for (const m of ensemble.members) {
    console.log(`  member ${m.id}: pid ${m.pid}, client ${m.clientPort}, admin http://127.0.0.1:${m.adminPort}/commands, log ${stateDir}/member-${m.id}.log`);
  }
  console.log('Drills from another terminal: npm run sandbox -- kill|freeze|thaw|stop|start|restart <id> (see --help).');
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
  const report = await sandboxStatus(stateDir, { size, portOffset });
  console.log(formatStatus(stateDir, report));
  process.exitCode = report.healthy ? 0 : 1;
}

async function drill(op: DrillOp, idText: string): Promise<void> {
  const id = Number(idText);
  if (!Number.isInteger(id) || id < 1) fail(`expected a member number after "${op}", got "${idText}"`);
  const outcome = await runDrill(stateDir, op, id, { timeoutMs: Math.round(timeoutS * 1000) });
  console.log(outcome.message);
}

async function add(idText: string): Promise<void> {
  const id = Number(idText);
  if (!Number.isInteger(id) || id < 1) fail(`expected a member number after "add", got "${idText}"`);
  if (values.role !== 'participant' && values.role !== 'observer') fail(`--role must be participant or observer, got "${values.role}"`);
  const role = values.observer || values.role === 'observer' ? 'observer' : 'participant';
  const outcome = await runAdd(stateDir, id, { role, timeoutMs: Math.round(timeoutS * 1000) });
  console.log(outcome.message);
}

const [command, member] = positionals;
const isDrill = (c: string | undefined): c is DrillOp => (DRILL_OPS as readonly string[]).includes(c ?? '');
if (values.help) console.log(USAGE);
else if (positionals.length === 2 && command === 'add') await add(member!).catch((err: Error) => fail(err.message));
else if (positionals.length === 2 && isDrill(command)) await drill(command, member!).catch((err: Error) => fail(err.message));
else if (positionals.length !== 1) fail(`expected a command (and a member for a drill)\n${USAGE}`);
else if (command === 'start') await start().catch((err: Error) => fail(err.message));
else if (command === 'stop') await stop();
else if (command === 'status') await status();
else if (command === 'add') fail('"add" needs a member number, e.g. npm run sandbox -- add 4');
else if (isDrill(command)) fail(`"${command}" needs a member number, e.g. npm run sandbox -- ${command} 2`);
else fail(`unknown command "${command}"\n${USAGE}`);
