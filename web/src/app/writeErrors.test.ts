import { describe, expect, it } from 'vitest';
import { ApiError } from '../lib/api';
import { writeErrorText } from './writeErrors';

const api = (status: number, code: string, message: string) => new ApiError(status, code, message);

describe('writeErrorText', () => {
  it('never passes a validator’s wording to the operator', () => {
    const text = writeErrorText(api(400, 'INVALID_BODY', 'version: Too small: expected number to be >=0'), 'edit');
    expect(text).not.toMatch(/Too small|expected number|>=/);
    expect(text).toMatch(/^Keeper could not save this data: the version .* version -1/);
  });

  it('names each field a 400 mentions, in words', () => {
    const text = writeErrorText(api(400, 'INVALID_BODY', 'data: Expected string, received number; mode: Invalid enum value'), 'create');
    expect(text).toContain('the data is not in a form Keeper can send');
    expect(text).toContain('the node type is not one ZooKeeper offers');
    expect(text).not.toMatch(/Expected|Invalid enum/);
  });

  it('hides validator text even under an unknown code', () => {
    expect(writeErrorText(api(400, 'SOMETHING_NEW', 'x.y: Invalid input: expected object'), 'import')).toBe(
      'Keeper could not import here: the request was not valid. Reload the page and try again.',
    );
  });

  it('explains ZooKeeper refusals as sentences', () => {
    expect(writeErrorText(api(403, 'NO_AUTH', 'NO_AUTH (-102) at /x'), 'edit')).toMatch(/ACL does not let the console save this data/);
    expect(writeErrorText(api(409, 'NO_CHILDREN_FOR_EPHEMERALS', 'NO_CHILDREN_FOR_EPHEMERALS (-108)'), 'create')).toMatch(
      /ephemeral node cannot have children/,
    );
    expect(writeErrorText(api(503, 'NOT_CONNECTED', 'not connected'), 'delete')).toMatch(/^Nothing was changed/);
    expect(writeErrorText(api(429, 'HTTP_429', 'POST answered 429'), 'create')).toMatch(/Too many requests/);
  });

  it('says who ZooKeeper sees Keeper as when it refuses a write for the ACL', () => {
    expect(writeErrorText(api(403, 'NO_AUTH', 'NO_AUTH (-102) at /x'), 'delete', 'ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1')).toBe(
      'ZooKeeper refused (NO_AUTH): ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1, and this node’s ACL does not let it delete this node. Give Keeper an identity the ACL names (the ensemble’s "auth", "sasl" or "tls" settings in the config file).',
    );
  });

  it("says Keeper, not ZooKeeper, refused a write under the replicas' root", () => {
    const sealed = api(
      403,
      'NO_AUTH',
      "create /keeper/replicas/x: /keeper/replicas holds the Keeper replicas' shared state, which no console session reads or changes",
    );
    expect(writeErrorText(sealed, 'create', 'ZooKeeper sees Keeper as sasl:keeper')).toBe(
      'Keeper refused: this node holds the Keeper replicas’ shared state, which no console session reads or changes.',
    );
  });

  it('says why a read-only session refuses a write, in the words every view uses', () => {
    const refused = api(503, 'NOT_CONNECTED', 'read-only: member 3 has lost quorum; data as of its last sync: writes wait for a member with quorum');
    expect(writeErrorText(refused, 'edit')).toBe(
      'Nothing was changed: read-only: member 3 has lost quorum; data as of its last sync: writes wait for a member with quorum.',
    );
  });

  it('keeps a server sentence that is already for people', () => {
    expect(writeErrorText(api(500, 'INTERNAL', 'the server could not complete this operation'), 'edit')).toBe('the server could not complete this operation');
    expect(writeErrorText(new Error('boom'), 'edit')).toBe('boom');
  });
});
