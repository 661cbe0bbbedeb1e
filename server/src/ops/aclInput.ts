/** ACL entries from requests (letters or bits) to what ZooKeeper takes, and back for answers. */
import { checkAclId, lettersToPermissions, permissionsToLetters, type AclEntryInput, type AclEntryView } from '@keeper/shared';
import type { AclEntry } from '../zk/mutations.js';
import { OpError } from '../admin/opError.js';

export function toAclEntries(input: readonly AclEntryInput[]): AclEntry[] {
  return input.map((entry, i) => {
    const where = `acl[${i}]`;
    if ((entry.perms === undefined) === (entry.permissions === undefined)) {
      throw new OpError('INVALID_ACL', `${where}: give exactly one of perms (letters "cdrwa") or permissions (bits 0-31)`);
    }
    let permissions = entry.permissions ?? 0;
    if (entry.perms !== undefined) {
      const parsed = lettersToPermissions(entry.perms);
      if (!parsed.ok) throw new OpError('INVALID_ACL', `${where}.perms: ${parsed.reason}`);
      permissions = parsed.bits;
    }
    if (permissions === 0) throw new OpError('INVALID_ACL', `${where}: an entry with no permission grants nothing; leave it out`);
    const idProblem = checkAclId(entry.scheme, entry.id);
    if (idProblem) throw new OpError('INVALID_ACL', `${where}.id: ${idProblem}`);
    return { scheme: entry.scheme, id: entry.id, permissions };
  });
}

export function toAclView(acl: readonly AclEntry[]): AclEntryView[] {
  return acl.map((a) => ({ scheme: a.scheme, id: a.id, perms: permissionsToLetters(a.permissions), permissions: a.permissions }));
}
