/**
 * `npm run build` (and `npm pack`, through prepack): Keeper as plain JavaScript in dist/, so the
 * installed package runs on Node.js alone, with its production dependencies and no tsx:
 *   dist/keeper.js   the server and its command line (scripts/start.ts, which is also `npm start`),
 *                    bundled with shared/ by esbuild; npm dependencies stay imports of node_modules;
 *   dist/web/        the web app (vite's build of web/, with its precompressed assets).
 * The web app is rebuilt only when its sources are newer than the last build, as `npm start` does.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(REPO, 'dist');
const WEB_DIST = path.join(REPO, 'web', 'dist');
const WEB_INPUTS = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'web/build', 'web/package.json', 'shared/src'];

/** The newest modification time of a file or of anything under a directory (0 when absent). */
function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  const entries = readdirSync(target, { recursive: true, encoding: 'utf8' });
  return entries.reduce((newest, entry) => Math.max(newest, statSync(path.join(target, entry)).mtimeMs), stat.mtimeMs);
}

function webIsFresh(): boolean {
  const built = path.join(WEB_DIST, 'index.html');
  if (!existsSync(built)) return false;
  const builtAt = statSync(built).mtimeMs;
  return WEB_INPUTS.every((input) => newestMtime(path.join(REPO, input)) <= builtAt);
}

async function main(): Promise<void> {
  if (webIsFresh()) console.log('build: the web app is up to date (web/dist)');
  else {
    console.log('build: building the web app (npm run build -w web)');
    execFileSync('npm', ['run', 'build', '-w', 'web'], { cwd: REPO, stdio: 'inherit' });
  }

  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });
  const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  console.log('build: bundling the server (esbuild) into dist/keeper.js');
  await build({
    entryPoints: [path.join(REPO, 'scripts', 'start.ts')],
    outfile: path.join(DIST, 'keeper.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The package's dependencies are installed beside it (kerberos, a native addon for SASL GSSAPI,
    // only where it builds); @keeper/shared (a workspace) is bundled in.
    external: Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }).flatMap((name) => [name, `${name}/*`]),
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  cpSync(WEB_DIST, path.join(DIST, 'web'), { recursive: true, filter: (source) => !source.endsWith('.map') });
  console.log(`build: keeper ${pkg.version} in dist/ (run it with: node dist/keeper.js --help)`);
}

await main();
