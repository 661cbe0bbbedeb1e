// One lint configuration for every workspace: typescript-eslint's recommended rules,
// React hooks rules for the web, a few rules that catch real mistakes in async code, and
// the layer rules that keep imports pointing one way.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import prettierOff from 'eslint-config-prettier/flat';
import { readdirSync } from 'node:fs';

/**
 * Layer rules: which way imports may point. Each is a no-restricted-imports pattern whose
 * message starts with the rule's name, so a violation says which rule it broke. The regexes
 * read the import as written (relative paths climb with ../), since ESLint does not resolve it.
 */
const layer = (name, regex, why) => ({ regex, caseSensitive: true, message: `Layer rule "${name}": ${why}` });
const zkImportsOnlyItself = layer(
  'zk-imports-only-itself',
  // Climbing out of zk/ is allowed for the logger alone; @keeper/shared and npm packages are not relative.
  '^\\.\\./(?!logger\\.js$)',
  'server/src/zk is the ZooKeeper core; it imports only itself, the logger and shared (everything else calls it, not the reverse).',
);
const domainKnowsNoAdapters = layer(
  'domain-knows-no-adapters',
  '^(\\.\\./)+(http|hub|topics)(/|$)',
  'the domain folders (ensemble, members, locks, upgrades, reconfig, replicas, ops, admin, audit) never import http, hub or topics: those adapters call the domain, not the reverse.',
);
const adminIsTheKernel = layer(
  'admin-is-the-kernel',
  '^(\\.\\./)+(ops|locks|upgrades|ensemble|members)(/|$)',
  'server/src/admin is the kernel below ops, locks and upgrades (audited, the admin check, the caller, OpError, jobs); it imports none of them.',
);
const lowerFoldersKnowNoEnsemble = layer(
  'lower-folders-know-no-ensemble',
  '^(\\.\\./)+ensemble(/|$)',
  'locks, ops, upgrades, reconfig, replicas and workflows take the small interfaces they need (LockScansEnsemble, ZnodeOpsEnsemble, config/ensembleState.ts), never the Ensemble: ensemble/ assembles them, not the reverse.',
);
const workflowsAreTheCore = layer(
  'workflows-are-the-core',
  '^(\\.\\./)+upgrades(/|$)',
  'what upgrades, resizes and lock scans share (the run guard, the lock, the writer, the takeover wait) lives in server/src/workflows/; reconfig, locks and workflows never import upgrades.',
);
const noOpsBelowOps = layer(
  'locks-and-upgrades-import-no-ops',
  '^(\\.\\./)+ops(/|$)',
  'locks/ and upgrades/ sit beside ops/, not above it: what they share with it lives in admin/.',
);
const sharedImportsNoNode = layer('shared-imports-no-node', '^node:', 'shared/ runs in the browser too: it imports no node: module.');
const socketImportsNoFeature = layer(
  'socket-imports-no-feature',
  '^(\\.\\./)+features(/|$)',
  'web/src/socket imports no feature; features register their topics into the socket layer instead.',
);
const webNeverImportsServer = layer(
  'web-never-imports-server',
  '^(@keeper/server|(\\.\\./)+server)(/|$)',
  'web never imports server code; what both sides need lives in shared/.',
);
const sharedImportsNeither = layer(
  'shared-imports-neither',
  '^(@keeper/(web|server)|(\\.\\./)+(web|server))(/|$)',
  'shared/ imports neither web nor server; both import it.',
);
// A later config object replaces a rule's options instead of merging them, so a folder inside
// web/ lists the web-wide rule again next to its own.
const restrictImports = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const uiIsAKit = layer(
  'ui-is-a-kit',
  '^(\\.\\./)+(app|features)(/|$)',
  'web/src/ui is the presentational kit; it imports neither app-wide state (app/) nor a feature.',
);
const appImportsNoFeature = layer(
  'app-imports-no-feature',
  '^(\\.\\./)+features(/|$)',
  'web/src/app holds app-wide state and parts (current user, URLs, freshness, jobs); features import it, not the reverse.',
);

/**
 * Feature boundaries: a file in web/src/features/<name> imports only ui, lib, socket, app
 * and its own feature. ESLint does not resolve imports, so the rule is stated per depth: from
 * features/<name>/a/b.ts, `../../x` is the feature x and `../../../x` is web/src/x.
 */
const FEATURE_EXCEPTIONS = {
  // The shell is the app's frame: it places other features' parts in its bars and dialogs
  // (the user menu, the console-session badge, the share button and banner, Go to path).
  shell: ['auth', 'consoleSession', 'share', 'tree'],
  // The upgrade view shows the members around a rolling restart with the ensemble view's own
  // health feed (useEnsembleHealth) and member cards (ensemble.css), not a copy of them.
  upgrades: ['ensemble'],
};
// What a feature may import from web/src besides itself; testSupport holds jsdom test helpers.
const FEATURE_MAY_IMPORT = ['ui', 'lib', 'socket', 'app', 'testSupport'];
const features = readdirSync(new URL('./web/src/features', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const featureBoundaries = features.flatMap((name) => {
  const allowed = [name, ...(FEATURE_EXCEPTIONS[name] ?? [])].join('|');
  return [0, 1, 2, 3].map((depth) => ({
    files: [`web/src/features/${name}/${'*/'.repeat(depth)}*.{ts,tsx}`],
    rules: restrictImports(
      webNeverImportsServer,
      layer(
        'feature-boundaries',
        `^(\\.\\./){${depth + 1}}(?!(${allowed})(/|$))[^./][^/]*(/|$)`,
        `features/${name} imports no other feature (only ui, lib, socket, app and itself; exceptions are named in eslint.config.js).`,
      ),
      layer(
        'feature-boundaries',
        `^(\\.\\./){${depth + 2}}(?!(${FEATURE_MAY_IMPORT.join('|')})(/|$))[^./][^/]*(/|$)`,
        `features/${name} imports from web/src only ${FEATURE_MAY_IMPORT.join(', ')} and itself.`,
      ),
    ),
  }));
});

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  { files: ['server/src/zk/**'], rules: restrictImports(zkImportsOnlyItself) },
  {
    files: ['server/src/{ensemble,members,audit}/**'],
    rules: restrictImports(domainKnowsNoAdapters),
  },
  {
    files: ['server/src/{ops,replicas}/**'],
    rules: restrictImports(domainKnowsNoAdapters, lowerFoldersKnowNoEnsemble),
  },
  { files: ['server/src/upgrades/**'], rules: restrictImports(domainKnowsNoAdapters, noOpsBelowOps, lowerFoldersKnowNoEnsemble) },
  {
    files: ['server/src/{locks,reconfig,workflows}/**'],
    rules: restrictImports(domainKnowsNoAdapters, noOpsBelowOps, lowerFoldersKnowNoEnsemble, workflowsAreTheCore),
  },
  { files: ['server/src/admin/**'], rules: restrictImports(domainKnowsNoAdapters, adminIsTheKernel) },
  { files: ['web/**'], rules: restrictImports(webNeverImportsServer) },
  { files: ['web/src/socket/**'], rules: restrictImports(webNeverImportsServer, socketImportsNoFeature) },
  { files: ['web/src/ui/**'], rules: restrictImports(webNeverImportsServer, uiIsAKit) },
  { files: ['web/src/app/**'], rules: restrictImports(webNeverImportsServer, appImportsNoFeature) },
  ...featureBoundaries,
  { files: ['shared/**'], rules: restrictImports(sharedImportsNeither, sharedImportsNoNode) },
  // The exception: shared's own tests run under Node only (never bundled for the browser), and one
  // runs a real restart command through node:child_process.
  { files: ['shared/test/**'], rules: restrictImports(sharedImportsNeither) },
  {
    // Tests poke at untyped JSON bodies on purpose.
    files: ['**/test/**/*.ts', '**/*.test.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  // Layout is Prettier's job (npm run format:check): turn off any rule that would argue with it.
  prettierOff,
);
