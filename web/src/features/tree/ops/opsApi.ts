/**
 * The admin operations on znodes over HTTP (docs/access-and-admin-api.md), one function each,
 * every answer parsed with its route's schema from the shared contract. Writes go through lib/api
 * (CSRF header, 401 handling); every one that changes a value sends the version it was read at,
 * so nothing is ever overwritten silently.
 */
import { z } from 'zod';
import {
  aclAnswerSchema,
  deleteAnswerSchema,
  encodedDataSchema,
  encodeZnodeData,
  exportDocumentSchema,
  importPreviewSchema,
  jobAnswerSchema,
  MAX_ZNODE_DATA_BYTES,
  pathToUrlSegment,
  setAclAnswerSchema,
  statSchema,
  subtreeCountSchema,
  writeAnswerSchema,
  ZNODE_DATA_HEADERS,
  type AclAnswer,
  type AclEntryInput,
  type CreateBody,
  type DeleteAnswer,
  type EncodedData,
  type ExportDocument,
  type ImportPreview,
  type JobSnapshot,
  type SetAclAnswer,
  type SubtreeCount,
  type WriteAnswer,
  type ZnodeStat,
} from '@keeper/shared';
import { api, apiBytes, ApiError } from '../../../lib/api';

function opUrl(kind: 'znodes' | 'data' | 'subtree' | 'acl' | 'export' | 'import', ensemble: string, path: string): string {
  return `/api/ensembles/${encodeURIComponent(ensemble)}/${kind}${path === '/' ? '' : pathToUrlSegment(path)}`;
}

export type { AclAnswer, SubtreeCount, WriteAnswer };

export function createZnode(ensemble: string, path: string, body: CreateBody): Promise<WriteAnswer> {
  return api(opUrl('znodes', ensemble, path), { method: 'POST', body, schema: writeAnswerSchema });
}

export function setZnodeData(ensemble: string, path: string, body: { data: string; encoding: 'utf8' | 'base64'; version: number }): Promise<WriteAnswer> {
  return api(opUrl('znodes', ensemble, path), { method: 'PUT', body, schema: writeAnswerSchema });
}

export function deleteZnode(ensemble: string, path: string, version: number): Promise<DeleteAnswer> {
  return api(`${opUrl('znodes', ensemble, path)}?version=${version}`, { method: 'DELETE', schema: deleteAnswerSchema });
}

export async function startRecursiveDelete(ensemble: string, path: string, version: number): Promise<JobSnapshot> {
  return (await api(`${opUrl('znodes', ensemble, path)}?version=${version}&recursive=true`, { method: 'DELETE', schema: jobAnswerSchema })).job;
}

export function countSubtree(ensemble: string, path: string, signal?: AbortSignal): Promise<SubtreeCount> {
  return api(opUrl('subtree', ensemble, path), { schema: subtreeCountSchema, ...(signal ? { signal } : {}) });
}

export function getAcl(ensemble: string, path: string): Promise<AclAnswer> {
  return api(opUrl('acl', ensemble, path), { schema: aclAnswerSchema });
}

/** `confirm` (the path, typed by the operator) applies an ACL the server said would lock the console out (409 ACL_LOCKS_OUT). */
export function setAcl(ensemble: string, path: string, acl: AclEntryInput[], version: number, confirm?: string): Promise<SetAclAnswer> {
  return api(opUrl('acl', ensemble, path), {
    method: 'PUT',
    body: { acl, version, ...(confirm !== undefined ? { confirm } : {}) },
    schema: setAclAnswerSchema,
  });
}

export function exportSubtree(ensemble: string, path: string, signal?: AbortSignal): Promise<ExportDocument> {
  return api(opUrl('export', ensemble, path), { schema: exportDocumentSchema, ...(signal ? { signal } : {}) });
}

/** The version header of GET .../data: the bytes' stat.version, a decimal integer. */
const versionHeader = z
  .string()
  .regex(/^\d{1,10}$/)
  .transform(Number);

/**
 * A value of any size (up to ZooKeeper's limit), read as its bytes from GET .../data/<path>, and
 * the version they are at: what the editor opens when the live view carries only the first 64 KiB.
 */
export async function readWholeValue(ensemble: string, path: string, signal?: AbortSignal): Promise<{ version: number; data: EncodedData }> {
  const url = opUrl('data', ensemble, path);
  const { bytes, headers } = await apiBytes(url, signal);
  const version = versionHeader.safeParse(headers.get(ZNODE_DATA_HEADERS.version));
  if (!version.success)
    throw new ApiError(
      200,
      'BAD_RESPONSE',
      `unexpected answer from Keeper to GET ${url}: no ${ZNODE_DATA_HEADERS.version} header. If Keeper was just updated, reload the page`,
    );
  return { version: version.data, data: encodeZnodeData(bytes, MAX_ZNODE_DATA_BYTES + 1) };
}

export function previewImport(ensemble: string, path: string, doc: ExportDocument, overwrite: boolean): Promise<ImportPreview> {
  return api(`${opUrl('import', ensemble, path)}?dryRun=true${overwrite ? '&overwrite=true' : ''}`, { method: 'POST', body: doc, schema: importPreviewSchema });
}

export async function startImport(ensemble: string, path: string, doc: ExportDocument, overwrite: boolean): Promise<JobSnapshot> {
  return (await api(`${opUrl('import', ensemble, path)}${overwrite ? '?overwrite=true' : ''}`, { method: 'POST', body: doc, schema: jobAnswerSchema })).job;
}

export interface StaleVersion {
  stat: ZnodeStat;
  data: EncodedData;
}

const staleVersionBodySchema = z.object({ current: z.object({ stat: statSchema, data: encodedDataSchema }) });

/** The current value a 409 BAD_VERSION carries, or null for any other error (or one without it). */
export function staleVersionOf(error: unknown): StaleVersion | null {
  if (!(error instanceof ApiError) || error.status !== 409 || error.code !== 'BAD_VERSION') return null;
  const parsed = staleVersionBodySchema.safeParse(error.body);
  return parsed.success ? parsed.data.current : null;
}

export { opUrl };
