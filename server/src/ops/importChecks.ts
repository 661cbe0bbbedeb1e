/**
 * What the dry run must catch that the plan alone does not: everything ZooKeeper (or Keeper)
 * would refuse once the job runs. Any problem refuses the whole import before anything is
 * written, so an import never stops half-way for a reason that was knowable beforehand:
 *  - tooLarge: the create or setData request would be longer than the members' jute.maxbuffer
 *    (which would drop the console's shared connection);
 *  - duplicatePath: the file lists a node twice;
 *  - invalidAcl: an entry ZooKeeper refuses (a malformed id; `auth` with no console credentials);
 *  - aclLocksOut: a node's ACL would take read or admin from the console (or may: only ip entries
 *    grant them), the check PUT …/acl makes. An import has no typed confirmation: set such an ACL
 *    with PUT …/acl after the import, where the path is typed back;
 *  - aclNotGranted: a writer's file gives a node an ACL other than the default; a writer's grant
 *    changes data in its subtrees, and setting ACLs is an admin's (PUT …/acl is admin-only);
 *  - aclDeniesChildren: a node's ACL would not let the console create the children the file
 *    puts under it;
 *  - underZookeeper: ZooKeeper's own subtree (shared/src/protectedPaths.ts).
 * Pure: the caller gives the plan, the console's identity and the size limit.
 */
import {
  checkAclId,
  checkRequestSize,
  consoleAccessUnder,
  consolePermissionsUnder,
  isUnderZookeeper,
  MAX_REPORTED_PROBLEMS,
  PERMISSION_BITS,
  permissionsToLetters,
  type AclScheme,
  type ConsoleIdentity,
  type ExportNode,
  type ImportPlan,
  type ImportProblemReason,
} from '@keeper/shared';
import { targetPathOf } from './importPlan.js';

export interface ImportProblem {
  path: string;
  reason: ImportProblemReason;
  detail: string;
}

export interface ImportCheckContext {
  juteMaxBuffer: number;
  chroot: string | null;
  console: ConsoleIdentity;
  /** Whether the caller may give nodes their ACLs (an admin); a writer's nodes get the default. */
  maySetAcl: boolean;
}

/** What a node is created with when the file gives no ACL (ZkMutations' default). */
const DEFAULT_ACL: ExportNode['acl'] = [{ scheme: 'world', id: 'anyone', permissions: 31 }];

export function importProblems(
  root: string,
  nodes: readonly (ExportNode & { bytes: Uint8Array })[],
  plan: ImportPlan,
  ctx: ImportCheckContext,
): ImportProblem[] {
  const problems: ImportProblem[] = [];
  const byPath = new Map<string, ExportNode & { bytes: Uint8Array }>();
  const times = new Map<string, number>();
  for (const node of nodes) {
    const path = targetPathOf(root, node.rel);
    times.set(path, (times.get(path) ?? 0) + 1);
    byPath.set(path, node);
  }
  for (const [path, n] of times) {
    if (n > 1) problems.push({ path, reason: 'duplicatePath', detail: `listed ${n} times in the file: which one to write is ambiguous` });
  }

  const creating = new Set(plan.create);
  for (const path of [...plan.create, ...plan.update.map((u) => u.path)]) {
    if (isUnderZookeeper(path)) {
      problems.push({ path, reason: 'underZookeeper', detail: "ZooKeeper's own subtree: Keeper does not write there" });
    }
  }

  for (const path of plan.create) {
    const node = byPath.get(path);
    if (!node) continue;
    const acl = node.acl.length > 0 ? node.acl : DEFAULT_ACL;
    const size = checkRequestSize({ op: 'create', path, chroot: ctx.chroot, dataBytes: node.bytes.length, acl }, ctx.juteMaxBuffer);
    if (!size.ok) problems.push({ path, reason: 'tooLarge', detail: withoutLead(size.reason, `create ${path}: `) });
    const aclProblem = invalidAcl(acl, ctx.console);
    if (aclProblem) problems.push({ path, reason: 'invalidAcl', detail: aclProblem });
    else if (!ctx.maySetAcl && !isDefaultAcl(acl))
      problems.push({
        path,
        reason: 'aclNotGranted',
        detail: `the file gives it the ACL ${describeAcl(acl)}: a writer's nodes are created with the default (world:anyone:cdrwa); remove "acl" from the file, or ask an admin to set it`,
      });
    else {
      const access = consoleAccessUnder(acl, ctx.console);
      if (access.verdict !== 'keeps')
        problems.push({
          path,
          reason: 'aclLocksOut',
          detail: `its ACL ${describeAcl(acl)} ${access.verdict === 'unknown' ? 'may lock' : 'locks'} the console out: ${access.reason} Import it without that ACL, then set it with PUT …/acl, which asks for the path typed back`,
        });
    }
  }
  for (const { path } of plan.update) {
    const node = byPath.get(path);
    if (!node) continue;
    const size = checkRequestSize({ op: 'setData', path, chroot: ctx.chroot, dataBytes: node.bytes.length }, ctx.juteMaxBuffer);
    if (!size.ok) problems.push({ path, reason: 'tooLarge', detail: withoutLead(size.reason, `setData ${path}: `) });
  }

  // A child created by this import needs CREATE on its parent; a parent this import creates gets the file's ACL.
  const deniedParents = new Map<string, number>();
  for (const path of plan.create) {
    const parent = parentOf(path);
    if (parent === null || !creating.has(parent)) continue;
    const parentNode = byPath.get(parent);
    if (!parentNode || parentNode.acl.length === 0) continue;
    const { granted, undecided } = consolePermissionsUnder(parentNode.acl, ctx.console);
    if (((granted | undecided) & PERMISSION_BITS.c) === 0) deniedParents.set(parent, (deniedParents.get(parent) ?? 0) + 1);
  }
  for (const [parent, children] of deniedParents) {
    problems.push({
      path: parent,
      reason: 'aclDeniesChildren',
      detail: `its ACL does not let the console create (c) the ${children} ${children === 1 ? 'child' : 'children'} the file puts under it`,
    });
  }
  return problems;
}

function invalidAcl(acl: readonly { scheme: AclScheme; id: string }[], console: ConsoleIdentity): string | null {
  for (const [i, entry] of acl.entries()) {
    if (entry.scheme === 'auth') {
      if (console.digestIds.length === 0 && (console.authIds?.length ?? 0) === 0)
        return `acl[${i}]: an auth entry stands for the console's own credentials, and it has none here: ZooKeeper refuses it (INVALID_ACL)`;
      continue;
    }
    const problem = checkAclId(entry.scheme, entry.id);
    if (problem) return `acl[${i}] ${entry.scheme}:${entry.id}: ${problem}`;
  }
  return null;
}

function isDefaultAcl(acl: readonly { scheme: string; id: string; permissions: number }[]): boolean {
  const [only, ...rest] = acl;
  return (
    rest.length === 0 &&
    only !== undefined &&
    only.scheme === DEFAULT_ACL[0]!.scheme &&
    only.id === DEFAULT_ACL[0]!.id &&
    only.permissions === DEFAULT_ACL[0]!.permissions
  );
}

/** scheme:id:perms, the id of a digest cut to its user (the hash stays out of the words). */
function describeAcl(acl: readonly { scheme: string; id: string; permissions: number }[]): string {
  return acl.map((a) => `${a.scheme}:${a.scheme === 'digest' ? `${a.id.split(':')[0]}:…` : a.id}:${permissionsToLetters(a.permissions)}`).join(', ');
}

/** The size reason names the request and path; a problem row already has the path. */
function withoutLead(reason: string, lead: string): string {
  return reason.startsWith(lead) ? reason.slice(lead.length) : reason;
}

function parentOf(path: string): string | null {
  if (path === '/') return null;
  const i = path.lastIndexOf('/');
  return i === 0 ? '/' : path.slice(0, i);
}

/** The plan with its problems attached (capped for the answer); a plan without any keeps its old shape. */
export function withProblems(plan: ImportPlan, problems: readonly ImportProblem[]): ImportPlan {
  if (problems.length === 0) return plan;
  return { ...plan, problems: problems.slice(0, MAX_REPORTED_PROBLEMS), problemsTotal: problems.length };
}

export function refusalMessage(problems: readonly ImportProblem[], total = problems.length): string {
  const first = problems.slice(0, 3).map((p) => `${p.path}: ${p.reason} (${p.detail})`);
  return `import refused, nothing written: ${total} ${total === 1 ? 'problem' : 'problems'} would make it fail (a dry run lists them all): ${first.join('; ')}${total > 3 ? '; …' : ''}`;
}
