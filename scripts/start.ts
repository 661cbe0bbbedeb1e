/**
 * `npm start` after setup (scripts/start.sh): parse the options, start the local
 * sandbox ensemble when no ensemble was given, serve Keeper, and on SIGINT/SIGTERM close
 * the server first (so browsers see a clean close), then the sandbox. Exits 0, leaving
 * no process behind.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKeeper } from '../server/src/app.js';
import { ConfigError, parseStartArgs, type SandboxPlan } from '../server/src/config/cli.js';
import type { EnsembleConfig, KeeperOptions } from '../server/src/config/types.js';
import { onOrphaned } from './lib/parentWatch.js';
import {
  fallbackSentence,
  fetchOlderBuild,
  installedBuildVersion,
  keeperSecureSettings,
  OLDER_BUILD,
  SandboxEnsemble,
  type OlderBuild,
  type SandboxOptions,
} from './sandbox/index.js';
import { loadOrCreateAdminToken } from '../server/src/auth/generatedToken.js';
import { isLoopbackHost } from '../server/src/auth/origin.js';
import { signInLines } from './lib/signInHelp.js';
import { servingLine } from './lib/servingLine.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
/** The installed package (npm run build) keeps the web app beside its bundle, dist/web; a checkout serves web/dist. */
const WEB_DIST = existsSync(path.join(HERE, 'web', 'index.html')) ? path.join(HERE, 'web') : path.join(REPO, 'web', 'dist');
const SHUTDOWN_GRACE_MS = 10_000;

function die(message: string, code: number): never {
  console.error(`keeper: ${message}`);
  process.exit(code);
}

function sandboxEnsemble(plan: SandboxPlan, sandbox: SandboxEnsemble, superPassword: string | null): EnsembleConfig {
  return {
    name: plan.ensembleName,
    connectionString: sandbox.connectionString,
    members: sandbox.members.map((m) => ({ host: m.host, clientPort: m.clientPort, adminPort: m.adminPort })),
    // --secure: the sandbox's CA, Keeper's client certificate and user keeper's password file.
    ...(sandbox.security ? keeperSecureSettings(sandbox.security) : {}),
    // Resizing: the resize's own session is the sandbox's super user; a member to add is started by the sandbox's CLI.
    ...(superPassword !== null
      ? {
          reconfigAuth: { scheme: 'digest' as const, credential: `super:${superPassword}` },
          startCommand: `npm run sandbox -- add {id} --role {role} --state-dir ${plan.stateDir}`,
        }
      : {}),
  };
}

/**
 * --secure: TLS only with a CA of the sandbox's own, SASL DIGEST-MD5 required of every session
 * (user keeper, a new password each start: only this Keeper needs it), read-only members.
 */
function secureSandboxOptions(): Pick<SandboxOptions, 'secure' | 'readOnlyMode'> {
  return { secure: { saslUsers: { keeper: randomBytes(18).toString('base64url') } }, readOnlyMode: true };
}

function printSecureFacts(config: EnsembleConfig): void {
  if (!config.tls) return;
  console.log(`The sandbox is TLS only (CA ${config.tls.ca}; Keeper's client certificate ${config.tls.cert}),`);
  if (config.sasl?.mechanism === 'DIGEST-MD5' && config.sasl.passwordFile !== undefined) {
    console.log(`requires SASL DIGEST-MD5 (Keeper is ${config.sasl.username}, password in ${config.sasl.passwordFile}),`);
  }
  console.log('and its members keep serving reads when they lose quorum (readonlymode.enabled).');
}

/** Resolves after fn, or after the deadline: a stuck close must not keep the JVMs alive. */
async function within(ms: number, what: string, fn: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      console.error(`keeper: ${what} did not finish within ${ms} ms; going on`);
      resolve();
    }, ms);
  });
  await Promise.race([fn().catch((err: Error) => console.error(`keeper: ${what} failed: ${err.message}`)), deadline]);
  clearTimeout(timer);
}

/** --from-older-build: the build to start on, or null after saying the upgrade will be a plain rolling restart. */
async function olderBuildOrFallback(): Promise<OlderBuild | null> {
  console.log(`Fetching the older ZooKeeper build (${OLDER_BUILD.package} ${OLDER_BUILD.version}; once, then cached) ...`);
  const fetched = await fetchOlderBuild();
  if (fetched.ok) {
    console.log(`... ${fetched.fromCache ? 'found in the cache' : 'fetched'}: ${path.dirname(fetched.build.jars[0]!)}`);
    return fetched.build;
  }
  console.log(`keeper: ${fallbackSentence(fetched.reason)}`);
  return null;
}

/** What to type in the Upgrades view: the installed build's version, as srvr will report it. */
async function printUpgradeTarget(build: OlderBuild): Promise<void> {
  console.log(`The sandbox runs the older build ${build.label}: "${build.version}".`);
  try {
    const target = await installedBuildVersion();
    const builtOn = /built on \d{4}-\d{2}-\d{2}/.exec(target)?.[0];
    console.log('To upgrade it to the installed build, plan an upgrade in the Upgrades view with the target version');
    console.log(`    ${target}`);
    if (builtOn) console.log(`(or any part of it that tells the builds apart, such as "${builtOn}"). Each restart brings a member up on the installed build.`);
  } catch (err) {
    console.log(`(could not read the installed build's version: ${(err as Error).message}; its srvr shows it once a member restarted)`);
  }
}

async function main(): Promise<void> {
  let plan;
  try {
    plan = parseStartArgs(process.argv.slice(2), process.env);
  } catch (err) {
    if (err instanceof ConfigError) die(err.message, 2);
    throw err;
  }
  if (plan.kind === 'help') {
    console.log(plan.text);
    return;
  }

  let sandbox: SandboxEnsemble | null = null;
  // KEEPER_WEB_DIST lets a test run serve a build of its own (e2e runs side by side in development).
  const options: KeeperOptions = { ...plan.keeper, webDist: plan.keeper.webDist ?? process.env.KEEPER_WEB_DIST ?? WEB_DIST };
  // No identity configured: as Jupyter does, make up an admin token (kept, so restarts keep the
  // URL people saved) and serve loopback only, where only this machine's users can reach it.
  let signInToken: string | null = null;
  const auth = options.auth;
  if (auth && !auth.adminToken && !auth.viewerToken && !auth.users?.length && !auth.oidc) {
    if (!isLoopbackHost(options.host)) {
      die(
        `refusing to listen on ${options.host} without authentication: set KEEPER_ADMIN_TOKEN (and KEEPER_VIEWER_TOKEN) or configure users (see --help), or use --host 127.0.0.1`,
        2,
      );
    }
    const generated = loadOrCreateAdminToken(auth.stateDir);
    auth.adminToken = generated.token;
    signInToken = generated.token;
    console.log(`${generated.created ? 'Generated' : 'Using'} the admin token in ${generated.file}`);
  }
  let startOn: OlderBuild | null = null;
  let superPassword: string | null = null;
  if (plan.sandbox) {
    if (plan.sandbox.fromOlderBuild) startOn = await olderBuildOrFallback();
    superPassword = plan.sandbox.secure ? null : randomBytes(18).toString('base64url');
    console.log(`Starting the ZooKeeper sandbox (3 members${plan.sandbox.secure ? ', TLS and SASL' : ''}) in ${plan.sandbox.stateDir} ...`);
    try {
      sandbox = await SandboxEnsemble.start({
        stateDir: plan.sandbox.stateDir,
        portOffset: plan.sandbox.portOffset,
        log: (line) => console.log(`[sandbox] ${line}`),
        ...(startOn ? { startOn } : {}),
        // Dynamic reconfiguration (issue 24): reconfigEnabled, a dynamic config file, a super user (a new password each start).
        ...(plan.sandbox.secure || superPassword === null ? secureSandboxOptions() : { reconfig: { superPassword } }),
      });
    } catch (err) {
      die(`could not start the sandbox: ${(err as Error).message}`, 1);
    }
    options.ensembles = [sandboxEnsemble(plan.sandbox, sandbox, superPassword)];
  }

  let keeper;
  try {
    const restarter = sandbox;
    // The Upgrades view restarts the sandbox's members itself (no restartCommand needed).
    const hold = testDeleteHold(process.env.KEEPER_TEST_HOLD_DELETE);
    keeper = await startKeeper(options, {
      ...(restarter
        ? {
            restartMember: async (_ensemble, id) => {
              const outcome = await restarter.restartMember(id);
              return { message: outcome.message, processChanged: outcome.previousPid !== outcome.member.pid };
            },
          }
        : {}),
      ...(hold ? { recursiveDelete: { hold } } : {}),
    });
  } catch (err) {
    await sandbox?.close();
    die((err as Error).message, 1);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      // A second Ctrl-C: leave now; the sandbox's exit hook still kills the JVMs.
      die(`${signal} again: exiting without waiting`, 1);
    }
    stopping = true;
    console.log(`${signal}: stopping Keeper${sandbox ? ' and the sandbox' : ''} ...`);
    await within(SHUTDOWN_GRACE_MS, 'closing the server', () => keeper.close());
    if (sandbox) await within(SHUTDOWN_GRACE_MS, 'stopping the sandbox', () => sandbox.close());
    console.log('stopped');
    process.exit(0);
  };
  // Before anything is printed: whoever reads the lines below may signal at once (a test does).
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, (s) => void shutdown(s));
  onOrphaned(() => void shutdown('parent process gone'));

  // The sandbox's ensemble is the first (and only) one; its members are where the sandbox runs them.
  const served = sandbox ? [{ name: options.ensembles[0]?.name ?? 'default', connectionString: sandbox.connectionString }] : options.ensembles;
  console.log(servingLine(keeper.url, served, sandbox !== null));
  if (sandbox?.security && options.ensembles[0]) printSecureFacts(options.ensembles[0]);
  if (startOn) await printUpgradeTarget(startOn);
  const signIn = signInLines({
    url: keeper.url,
    adminToken: Boolean(options.auth?.adminToken) && signInToken === null,
    viewerToken: Boolean(options.auth?.viewerToken),
    users: options.auth?.users?.length ?? 0,
    generatedToken: signInToken,
  });
  for (const line of signIn) console.log(line);
}

await main();

/**
 * KEEPER_TEST_HOLD_DELETE=<root>:<n>, for the e2e servers only (playwright.config.ts): the first
 * recursive delete of <root> sends n deletes, then waits to be cancelled, so a spec cancels a job
 * that is provably still running (server/src/ops/recursiveDelete.ts).
 */
function testDeleteHold(value: string | undefined): { root: string; afterDeletes: number } | null {
  if (!value) return null;
  const match = /^(\/.*):(\d{1,7})$/.exec(value);
  if (!match) die(`KEEPER_TEST_HOLD_DELETE must be <absolute path>:<deletes>, not ${JSON.stringify(value)}`, 2);
  return { root: match[1]!, afterDeletes: Number(match[2]) };
}
