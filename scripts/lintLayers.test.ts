/**
 * The layer rules in eslint.config.js are live: the repository's own lint configuration,
 * run through ESLint's Node API, rejects an import against each rule with a message naming
 * that rule, and lets the imports the layers are meant to make through.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** Lints `code` as if it were the file at `file` (relative to the repository; it need not exist). */
async function lint(file: string, code: string): Promise<ESLint.LintResult> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!;
}

async function layerErrors(file: string, code: string): Promise<string[]> {
  const result = await lint(file, code);
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const violations: { rule: string; file: string; code: string }[] = [
  { rule: 'zk-imports-only-itself', file: 'server/src/zk/probe.ts', code: "import '../http/apiErrors.js';\n" },
  { rule: 'zk-imports-only-itself', file: 'server/src/zk/probe.ts', code: "import type { Outbox } from '../hub/outbox.js';\nexport type O = Outbox;\n" },
  { rule: 'zk-imports-only-itself', file: 'server/src/zk/probe.ts', code: "export { JobRegistry } from '../admin/jobs.js';\n" },
  { rule: 'zk-imports-only-itself', file: 'server/src/zk/probe.ts', code: "import '../auth/cookies.js';\n" },
  { rule: 'zk-imports-only-itself', file: 'server/src/zk/probe.ts', code: "import '../config/types.js';\n" },
  { rule: 'zk-imports-only-itself', file: 'server/src/zk/probe.ts', code: "import '../members/wire.js';\n" },
  { rule: 'domain-knows-no-adapters', file: 'server/src/ensemble/probe.ts', code: "import '../hub/socketHub.js';\n" },
  { rule: 'domain-knows-no-adapters', file: 'server/src/members/probe.ts', code: "import '../topics/index.js';\n" },
  { rule: 'domain-knows-no-adapters', file: 'server/src/ops/probe.ts', code: "import '../http/apiErrors.js';\n" },
  { rule: 'domain-knows-no-adapters', file: 'server/src/audit/probe.ts', code: "import '../http/jsonBody.js';\n" },
  { rule: 'domain-knows-no-adapters', file: 'server/src/locks/probe.ts', code: "import '../hub/outbox.js';\n" },
  { rule: 'domain-knows-no-adapters', file: 'server/src/upgrades/probe.ts', code: "import '../topics/upgradeProducer.js';\n" },
  { rule: 'domain-knows-no-adapters', file: 'server/src/admin/probe.ts', code: "import '../http/requestIdentity.js';\n" },
  { rule: 'locks-and-upgrades-import-no-ops', file: 'server/src/locks/probe.ts', code: "import '../ops/znodeOps.js';\n" },
  { rule: 'locks-and-upgrades-import-no-ops', file: 'server/src/upgrades/probe.ts', code: "import '../ops/walkBudget.js';\n" },
  { rule: 'admin-is-the-kernel', file: 'server/src/admin/probe.ts', code: "import '../ops/znodeOps.js';\n" },
  { rule: 'admin-is-the-kernel', file: 'server/src/admin/probe.ts', code: "import '../ensemble/ensemble.js';\n" },
  // Issue 35 part 3: the lower folders take small interfaces, never the Ensemble (a planted import from locks/ fails).
  {
    rule: 'lower-folders-know-no-ensemble',
    file: 'server/src/locks/probe.ts',
    code: "import type { Ensemble } from '../ensemble/ensemble.js';\nexport type E = Ensemble;\n",
  },
  { rule: 'lower-folders-know-no-ensemble', file: 'server/src/ops/probe.ts', code: "import '../ensemble/ensembleIdentity.js';\n" },
  { rule: 'lower-folders-know-no-ensemble', file: 'server/src/upgrades/probe.ts', code: "import '../ensemble/ensemble.js';\n" },
  { rule: 'lower-folders-know-no-ensemble', file: 'server/src/reconfig/probe.ts', code: "import '../ensemble/configFollower.js';\n" },
  { rule: 'lower-folders-know-no-ensemble', file: 'server/src/replicas/probe.ts', code: "import '../ensemble/ensembles.js';\n" },
  { rule: 'lower-folders-know-no-ensemble', file: 'server/src/workflows/probe.ts', code: "import '../ensemble/ensemble.js';\n" },
  // Issue 35 part 2: no import runs from reconfig/ or locks/ into upgrades/; both take what they share from workflows/.
  { rule: 'workflows-are-the-core', file: 'server/src/reconfig/probe.ts', code: "import '../upgrades/upgradeRunner.js';\n" },
  { rule: 'workflows-are-the-core', file: 'server/src/locks/probe.ts', code: "import '../upgrades/upgradeStore.js';\n" },
  { rule: 'workflows-are-the-core', file: 'server/src/workflows/probe.ts', code: "import '../upgrades/restarter.js';\n" },
  { rule: 'shared-imports-no-node', file: 'shared/src/probe.ts', code: "import 'node:fs';\n" },
  { rule: 'socket-imports-no-feature', file: 'web/src/socket/probe.ts', code: "import '../features/tree/treeModel';\n" },
  { rule: 'web-never-imports-server', file: 'web/src/features/tree/probe.ts', code: "import '../../../../server/src/zk/stat.js';\n" },
  { rule: 'web-never-imports-server', file: 'web/src/App.probe.tsx', code: "import '@keeper/server';\n" },
  // The socket folder's own rule must not replace the web-wide one.
  { rule: 'web-never-imports-server', file: 'web/src/socket/probe.ts', code: "import '../../../server/src/app.js';\n" },
  { rule: 'shared-imports-neither', file: 'shared/src/probe.ts', code: "import '../../server/src/zk/stat.js';\n" },
  { rule: 'shared-imports-neither', file: 'shared/src/protocol/probe.ts', code: "import '../../../web/src/lib/store';\n" },
  { rule: 'shared-imports-neither', file: 'shared/src/probe.ts', code: "import '@keeper/web';\n" },
  { rule: 'ui-is-a-kit', file: 'web/src/ui/probe.tsx', code: "import '../app/me';\n" },
  { rule: 'ui-is-a-kit', file: 'web/src/ui/probe.tsx', code: "import '../features/tree/ZnodeName';\n" },
  { rule: 'app-imports-no-feature', file: 'web/src/app/urls/probe.ts', code: "import '../../features/tree/treeModel';\n" },
  { rule: 'feature-boundaries', file: 'web/src/features/locks/probe.ts', code: "import '../tree/delete/deleteModel';\n" },
  { rule: 'feature-boundaries', file: 'web/src/features/tree/acl/probe.ts', code: "import '../../locks/lockWords';\n" },
  { rule: 'feature-boundaries', file: 'web/src/features/tree/probe.ts', code: "import '../shell/AppShell';\n" },
  { rule: 'feature-boundaries', file: 'web/src/features/tree/probe.ts', code: "import '../../App';\n" },
  // The shell's exceptions are its own: another feature may not import what the shell may.
  { rule: 'feature-boundaries', file: 'web/src/features/locks/probe.ts', code: "import '../auth/UserMenu';\n" },
];

describe('layer rules', () => {
  it.each(violations)('$rule rejects $code in $file', async ({ rule, file, code }) => {
    const errors = await layerErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`Layer rule "${rule}"`);
  });

  it.each([
    { file: 'server/src/http/probe.ts', code: "import '../zk/gateway.js';\nimport '../hub/outbox.js';\n" },
    { file: 'server/src/zk/probe.ts', code: "import 'node:http';\nimport './errors.js';\nimport '../logger.js';\nimport '@keeper/shared';\n" },
    {
      file: 'web/src/features/tree/probe.ts',
      code: "import '../../socket/socketContext';\nimport './watchEvents/watchEventLog';\nimport '../../app/me';\nimport '../../ui/TypedConfirm';\nimport '@keeper/shared';\n",
    },
    { file: 'web/src/features/tree/acl/probe.ts', code: "import '../delete/deleteModel';\nimport '../../../lib/time';\n" },
    { file: 'web/src/features/shell/probe.ts', code: "import '../auth/UserMenu';\nimport '../share/ShareButton';\n" },
    { file: 'web/src/ui/probe.ts', code: "import '../lib/time';\nimport '../theme/useTheme';\n" },
    {
      file: 'web/src/app/probe.ts',
      code: "import '../ui/format';\nimport '../socket/hooks';\n",
    },
    { file: 'web/src/socket/probe.ts', code: "import './socketContext';\nimport '../lib/store';\n" },
    { file: 'server/src/hub/probe.ts', code: "import '../http/apiErrors.js';\n" },
    { file: 'server/src/locks/probe.ts', code: "import '../admin/admin.js';\nimport '../config/ensembleState.js';\nimport '../lib/pool.js';\n" },
    { file: 'server/src/ops/probe.ts', code: "import '../admin/opError.js';\nimport '../zk/gateway.js';\nimport '../audit/fingerprint.js';\n" },
    { file: 'server/src/reconfig/probe.ts', code: "import '../workflows/runGuard.js';\nimport '../workflows/ownership.js';\n" },
    // The named exception: shared's tests run under Node only.
    { file: 'shared/test/probe.test.ts', code: "import 'node:child_process';\n" },
  ])('lets $file import what its layer may', async ({ file, code }) => {
    const result = await lint(file, code);
    expect(result.messages).toEqual([]);
  });
}, 60_000);
