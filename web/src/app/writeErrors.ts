/**
 * What a refused write says to an operator: a sentence about the znode, never the validator's
 * own words ("version: Too small: expected number to be >=0") or a bare code. Used by every
 * write dialog of the tree for whatever its own cases do not cover.
 */
import { ApiError, errorText } from '../lib/api';

export type WriteKind = 'create' | 'edit' | 'delete' | 'import' | 'acl';

const VERB: Record<WriteKind, string> = {
  create: 'create this node',
  edit: 'save this data',
  delete: 'delete this node',
  import: 'import here',
  acl: 'change this ACL',
};

/** A field a 400 named ("version: …; data: …"), for saying which part of the request was wrong. */
const FIELD_WORDS: Record<string, string> = {
  version: 'the version this change was checked against is not one ZooKeeper accepts (this node may be maintained by ZooKeeper itself, with version -1)',
  data: 'the data is not in a form Keeper can send',
  encoding: 'the data encoding is not one of text, JSON or base64',
  mode: 'the node type is not one ZooKeeper offers',
  acl: 'the ACL is not complete: each entry needs a scheme, an id and at least one permission',
  recursive: 'the delete request was malformed',
  overwrite: 'the import request was malformed',
};

/** Messages that are a schema's wording rather than a sentence for a person. */
function looksLikeValidatorText(message: string): boolean {
  return /\b(Too small|Too big|Invalid input|Invalid type|Expected|Required|Unrecognized key|must be|received)\b/i.test(message) && /:/.test(message);
}

function fieldsNamed(message: string): string[] {
  const fields = new Set<string>();
  for (const part of message.split(';')) {
    const field = part.split(':')[0]?.trim().split('.')[0] ?? '';
    if (field in FIELD_WORDS) fields.add(field);
  }
  return [...fields];
}

/**
 * A write ZooKeeper refused with NO_AUTH, with who it sees Keeper as (whoAmI) when that is known:
 * "ZooKeeper refused (NO_AUTH): ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1, and this node’s
 * ACL does not let it delete this node."
 */
export function noAuthWriteText(whose: string, verb: string, seenAs: string | null): string {
  return seenAs
    ? `ZooKeeper refused (NO_AUTH): ${seenAs}, and ${whose} ACL does not let it ${verb}. Give Keeper an identity the ACL names (the ensemble’s "auth", "sasl" or "tls" settings in the config file).`
    : `ZooKeeper refused: ${whose} ACL does not let the console ${verb}. Give Keeper a credential the ACL names (the ensemble’s "auth" entries in the config file).`;
}

/** The server's words for a call under the replicas' root, refused before it reached ZooKeeper. */
const SEALED_REFUSAL = /holds the Keeper replicas' shared state/;

/** The server's words for a write refused on a read-only session start so (ZkMutations, readOnlyReason). */
const READ_ONLY_REFUSAL = /^read-only: /;

/** `seenAs`: "ZooKeeper sees Keeper as …" from the console session, for NO_AUTH; null when not known. */
export function writeErrorText(error: unknown, kind: WriteKind, seenAs: string | null = null): string {
  if (!(error instanceof ApiError)) return errorText(error);
  const verb = VERB[kind];
  switch (error.code) {
    case 'INVALID_BODY':
    case 'INVALID_QUERY':
    case 'INVALID_DATA': {
      const fields = fieldsNamed(error.message);
      if (fields.length > 0) return `Keeper could not ${verb}: ${fields.map((f) => FIELD_WORDS[f]).join('; ')}.`;
      return `Keeper could not ${verb}: the request was not valid${looksLikeValidatorText(error.message) ? '' : ` (${error.message})`}. Reload the page and try again.`;
    }
    case 'MALFORMED_JSON':
      return `Keeper could not ${verb}: the request did not arrive intact. Try again.`;
    case 'DATA_TOO_LARGE':
      return 'The data is too large: ZooKeeper takes at most 1 MiB (1,048,576 bytes) per znode by default.';
    case 'NO_AUTH':
      // Keeper's own refusal, not ZooKeeper's: the replicas' root is sealed off the console session (server/src/zk/gateway.ts).
      if (SEALED_REFUSAL.test(error.message))
        return `Keeper refused: this node holds the Keeper replicas’ shared state, which no console session reads or changes.`;
      return noAuthWriteText('this node’s', verb, seenAs);
    case 'NO_NODE':
      return 'The node no longer exists: it was deleted meanwhile.';
    case 'NODE_EXISTS':
      return 'A node with this name already exists.';
    case 'NOT_EMPTY':
      return 'The node has children now: count again and delete the subtree.';
    case 'NO_CHILDREN_FOR_EPHEMERALS':
      return 'ZooKeeper refused: an ephemeral node cannot have children.';
    case 'BAD_VERSION':
      return 'The node changed since you opened it: look at the new value and try again.';
    case 'PROTECTED_PATH':
      return 'This is one of ZooKeeper’s own nodes: Keeper does not change it.';
    case 'BAD_ARGUMENTS':
      return `ZooKeeper refused the request as malformed: it maintains this node itself, so Keeper cannot ${verb}.`;
    case 'FORBIDDEN':
      return 'Only admins can change znodes; you are signed in as a viewer.';
    case 'NOT_CONNECTED':
    case 'CONNECTION_LOSS':
    case 'SESSION_EXPIRED':
    case 'CLOSED':
      // A read-only session is a working one, for reads: say which member and why, as every view does.
      if (READ_ONLY_REFUSAL.test(error.message)) return `Nothing was changed: ${error.message}.`;
      return `Nothing was changed: the console has no working ZooKeeper session right now. Try again once it is live.`;
    case 'DEADLINE_EXCEEDED':
    case 'OPERATION_TIMEOUT':
      return 'ZooKeeper did not answer in time; the change may or may not have been made. Look at the node before trying again.';
    case 'OVERLOADED':
    case 'THROTTLED_OP':
    case 'RATE_LIMITED':
      return 'Too many requests right now: wait a moment and try again.';
    case 'NETWORK':
      return error.message;
    default:
      if (error.status === 429) return 'Too many requests right now: wait a moment and try again.';
      return looksLikeValidatorText(error.message) ? `Keeper could not ${verb}: the request was not valid. Reload the page and try again.` : error.message;
  }
}
