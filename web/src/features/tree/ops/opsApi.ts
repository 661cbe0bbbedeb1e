/**
 * The admin operations on znodes over HTTP (docs/access-and-admin-api.md), one function each,
 * every answer parsed with its route's schema from the shared contract. Writes go through lib/api
 * (CSRF header, 401 handling); every one that changes a value sends the version it was read at,
 * so nothing is ever overwritten silently.
 */
import { z } from 'zod/mini';
import {
  ROUTES,
  encodedDataSchema,
  encodeZnodeData,
  MAX_ZNODE_DATA_BYTES,
  statSchema,
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
import { call, callBytes, ApiError } from '../../../lib/api';

export type { AclAnswer, SubtreeCount, WriteAnswer };

/** The job a route that starts one answered with (202); any other answer is not what was asked for. */
function jobOf(answer: object): JobSnapshot {
  if ('job' in answer) return (answer as { job: JobSnapshot }).job;
  throw new ApiError(200, 'BAD_RESPONSE', 'Keeper answered without starting a job. If Keeper was just updated, reload the page');
}

export function createZnode(ensemble: string, path: string, body: CreateBody): Promise<WriteAnswer> {
  return call(ROUTES.znodeCreate, { params: { name: ensemble, path }, body });
}

export function setZnodeData(ensemble: string, path: string, body: { data: string; encoding: 'utf8' | 'base64'; version: number }): Promise<WriteAnswer> {
  return call(ROUTES.znodeSet, { params: { name: ensemble, path }, body });
}

export function deleteZnode(ensemble: string, path: string, version: number): Promise<DeleteAnswer> {
  return call(ROUTES.znodeDelete, { params: { name: ensemble, path }, query: { version: String(version) } }) as Promise<DeleteAnswer>;
}

export async function startRecursiveDelete(ensemble: string, path: string, version: number): Promise<JobSnapshot> {
  return jobOf(await call(ROUTES.znodeDelete, { params: { name: ensemble, path }, query: { version: String(version), recursive: 'true' } }));
}

export function countSubtree(ensemble: string, path: string, signal?: AbortSignal): Promise<SubtreeCount> {
  return call(ROUTES.subtreeCount, { params: { name: ensemble, path }, signal });
}

export function getAcl(ensemble: string, path: string): Promise<AclAnswer> {
  return call(ROUTES.acl, { params: { name: ensemble, path } });
}

/** `confirm` (the path, typed by the operator) applies an ACL the server said would lock the console out (409 ACL_LOCKS_OUT). */
export function setAcl(ensemble: string, path: string, acl: AclEntryInput[], version: number, confirm?: string): Promise<SetAclAnswer> {
  return call(ROUTES.aclSet, { params: { name: ensemble, path }, body: { acl, version, ...(confirm !== undefined ? { confirm } : {}) } });
}

export function exportSubtree(ensemble: string, path: string, signal?: AbortSignal): Promise<ExportDocument> {
  return call(ROUTES.exportSubtree, { params: { name: ensemble, path }, signal });
}

/** The version header of GET .../data: the bytes' stat.version, a decimal integer. */
const versionHeader = z.pipe(z.string().check(z.regex(/^\d{1,10}$/)), z.transform(Number));

/**
 * A value of any size (up to ZooKeeper's limit), read as its bytes from GET .../data/<path>, and
 * the version they are at: what the editor opens when the live view carries only the first 64 KiB.
 */
export async function readWholeValue(ensemble: string, path: string, signal?: AbortSignal): Promise<{ version: number; data: EncodedData }> {
  const { bytes, headers, url } = await callBytes(ROUTES.znodeData, { params: { name: ensemble, path }, signal });
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
  return call(ROUTES.importSubtree, {
    params: { name: ensemble, path },
    query: { dryRun: 'true', overwrite: overwrite ? 'true' : undefined },
    body: doc,
  }) as Promise<ImportPreview>;
}

export async function startImport(ensemble: string, path: string, doc: ExportDocument, overwrite: boolean): Promise<JobSnapshot> {
  return jobOf(await call(ROUTES.importSubtree, { params: { name: ensemble, path }, query: { overwrite: overwrite ? 'true' : undefined }, body: doc }));
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
