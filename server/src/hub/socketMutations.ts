/**
 * Admin operations sent over the socket: the same ZnodeOps as the HTTP API, so a viewer is
 * refused (error `forbidden`, and the refusal audited) and an admin gets a `result` carrying
 * exactly what the HTTP API would have answered.
 */
import type { MutationMessage, ServerMessage } from '@keeper/shared';
import { canMutate, type Identity } from '../auth/identity.js';
import { toOpError } from '../ops/opError.js';
import type { Caller, ZnodeOps } from '../ops/znodeOps.js';

type Result = Extract<ServerMessage, { type: 'result' }>;

export async function handleSocketMutation(message: MutationMessage, identity: Identity, ops: ZnodeOps, remoteAddress?: string): Promise<ServerMessage> {
  const caller: Caller = { identity, ...(remoteAddress ? { remoteAddress } : {}) };
  const id = message.id !== undefined ? { id: message.id } : {};
  const where = message.type === 'cancelJob' ? {} : { ensemble: message.ensemble, path: message.path };
  if (!canMutate(identity)) {
    await ops.refuse(caller, { action: message.type, ...where, details: { via: 'socket' } });
    return { type: 'error', code: 'forbidden', message: `${identity.name} is a ${identity.role}: only admins may change anything`, ...id };
  }
  const base = { type: 'result' as const, op: message.type, ...id, ...where };
  try {
    const ok = (extra: Omit<Result, 'type' | 'op' | 'ok'>): Result => ({ ...base, ok: true, ...extra });
    switch (message.type) {
      case 'create': {
        const r = await ops.create(caller, message.ensemble, message.path, message);
        return ok({ stat: r.stat, created: r.path, ...(r.warning ? { warning: r.warning } : {}), ...(r.note ? { note: r.note } : {}) });
      }
      case 'setData': {
        const r = await ops.setData(caller, message.ensemble, message.path, message);
        return ok({ stat: r.stat, ...(r.note ? { note: r.note } : {}) });
      }
      case 'delete': {
        if (message.recursive) return ok({ jobId: (await ops.startRecursiveDelete(caller, message.ensemble, message.path, message.version)).id });
        const r = await ops.delete(caller, message.ensemble, message.path, message.version);
        return ok(r.note ? { note: r.note } : {});
      }
      case 'setAcl': {
        const r = await ops.setAcl(caller, message.ensemble, message.path, message);
        return ok({ stat: r.stat, ...(r.note ? { note: r.note } : {}) });
      }
      case 'cancelJob':
        return ok({ jobId: ops.cancelJob(caller, message.jobId).id });
      default: {
        const never: never = message;
        return never;
      }
    }
  } catch (error) {
    const e = toOpError(error);
    return { ...base, ok: false, error: { code: e.code, message: e.message }, ...(e.current ? { current: e.current } : {}) };
  }
}
