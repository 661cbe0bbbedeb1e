/**
 * The admin operations on znodes over HTTP (docs/access-and-admin-api.md), one function each.
 * Writes go through lib/api (CSRF header, 401 handling); every one that changes a value sends the
 * version it was read at, so nothing is ever overwritten silently.
 */
import {
  aclEntrySchema,
  encodedDataSchema,
  jobSnapshotSchema,
  pathToUrlSegment,
  statSchema,
  type AclEntryInput,
  type AclEntryView,
  type CreateModeName,
  type EncodedData,
  type ExportDocument,
  type ImportPlan,
  type InputEncoding,
  type JobSnapshot,
  type ZnodeStat,
} from '@keeper/shared';
import { api, ApiError, fieldSchema } from '../../../lib/api';

function opUrl(kind: 'znodes' | 'subtree' | 'acl' | 'export' | 'import', ensemble: string, path: string): string {
  return `/api/ensembles/${encodeURIComponent(ensemble)}/${kind}${path === '/' ? '' : pathToUrlSegment(path)}`;
}

export interface WriteAnswer {
  path: string;
  stat: ZnodeStat;
  /** create with an ephemeral mode: the node belongs to the console's session. */
  warning?: string;
  /** After a lost reply resolved by reading back ("reply lost; read back: applied"). */
  note?: string;
}

export function createZnode(ensemble: string, path: string, body: { data?: string; encoding?: InputEncoding; mode?: CreateModeName }): Promise<WriteAnswer> {
  return api(opUrl('znodes', ensemble, path), { method: 'POST', body });
}

export function setZnodeData(ensemble: string, path: string, body: { data: string; encoding: InputEncoding; version: number }): Promise<WriteAnswer> {
  return api(opUrl('znodes', ensemble, path), { method: 'PUT', body });
}

export function deleteZnode(ensemble: string, path: string, version: number): Promise<{ path: string; note?: string }> {
  return api(`${opUrl('znodes', ensemble, path)}?version=${version}`, { method: 'DELETE' });
}

export async function startRecursiveDelete(ensemble: string, path: string, version: number): Promise<JobSnapshot> {
  return (await api(`${opUrl('znodes', ensemble, path)}?version=${version}&recursive=true`, { method: 'DELETE', schema: fieldSchema('job', jobSnapshotSchema) })).job;
}

export interface SubtreeCount {
  path: string;
  /** Nodes a recursive delete would remove, the root included. */
  count: number;
  /** True past the server's counting limit (200,000): "at least". */
  truncated: boolean;
  depth: number;
}

export function countSubtree(ensemble: string, path: string, signal?: AbortSignal): Promise<SubtreeCount> {
  return api(opUrl('subtree', ensemble, path), signal ? { signal } : {});
}

export interface AclAnswer {
  path: string;
  acl: AclEntryView[];
  stat: ZnodeStat;
}

const aclAnswerSchema = {
  safeParse(value: unknown) {
    const v = value as { path?: unknown; acl?: unknown; stat?: unknown } | null;
    const acl = aclEntrySchema.array().safeParse(v?.acl);
    const stat = statSchema.safeParse(v?.stat);
    if (!acl.success) return acl;
    if (!stat.success) return stat;
    return { success: true as const, data: { path: String(v?.path ?? ''), acl: acl.data, stat: stat.data } };
  },
};

export function getAcl(ensemble: string, path: string): Promise<AclAnswer> {
  return api(opUrl('acl', ensemble, path), { schema: aclAnswerSchema });
}

/** `confirm` (the path, typed by the operator) applies an ACL the server said would lock the console out (409 ACL_LOCKS_OUT). */
export function setAcl(ensemble: string, path: string, acl: AclEntryInput[], version: number, confirm?: string): Promise<AclAnswer & { note?: string }> {
  return api(opUrl('acl', ensemble, path), { method: 'PUT', body: { acl, version, ...(confirm !== undefined ? { confirm } : {}) } });
}

export function exportSubtree(ensemble: string, path: string, signal?: AbortSignal): Promise<ExportDocument> {
  return api(opUrl('export', ensemble, path), signal ? { signal } : {});
}

export interface ImportPreview {
  dryRun: true;
  overwrite: boolean;
  plan: ImportPlan;
}

export function previewImport(ensemble: string, path: string, doc: ExportDocument, overwrite: boolean): Promise<ImportPreview> {
  return api(`${opUrl('import', ensemble, path)}?dryRun=true${overwrite ? '&overwrite=true' : ''}`, { method: 'POST', body: doc });
}

export async function startImport(ensemble: string, path: string, doc: ExportDocument, overwrite: boolean): Promise<JobSnapshot> {
  return (await api(`${opUrl('import', ensemble, path)}${overwrite ? '?overwrite=true' : ''}`, { method: 'POST', body: doc, schema: fieldSchema('job', jobSnapshotSchema) })).job;
}

export interface StaleVersion {
  stat: ZnodeStat;
  data: EncodedData;
}

/** The current value a 409 BAD_VERSION carries, or null for any other error. */
export function staleVersionOf(error: unknown): StaleVersion | null {
  if (!(error instanceof ApiError) || error.status !== 409 || error.code !== 'BAD_VERSION') return null;
  const current = (error.body as { current?: unknown } | null)?.current as { stat?: unknown; data?: unknown } | undefined;
  const stat = statSchema.safeParse(current?.stat);
  const data = encodedDataSchema.safeParse(current?.data);
  return stat.success && data.success ? { stat: stat.data, data: data.data } : null;
}

export { opUrl };
