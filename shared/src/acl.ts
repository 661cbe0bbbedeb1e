/**
 * ZooKeeper ACL permissions as bits (what the wire carries) and as the letters `cdrwa`
 * (what zkCli, kazoo and operators write). One place, so the API, the socket and the
 * browser never disagree about what "rw" means.
 */

/** ZooKeeper's ZooDefs.Perms. */
export const PERMISSION_BITS = { r: 1, w: 2, c: 4, d: 8, a: 16 } as const;
export type PermissionLetter = keyof typeof PERMISSION_BITS;
export const ALL_PERMISSIONS = 31;

/** zkCli's order: create, delete, read, write, admin. */
const LETTER_ORDER: readonly PermissionLetter[] = ['c', 'd', 'r', 'w', 'a'];

export const ACL_SCHEMES = ['world', 'digest', 'ip', 'auth', 'sasl', 'x509'] as const;
export type AclScheme = (typeof ACL_SCHEMES)[number];

/** 31 -> "cdrwa", 3 -> "rw", 0 -> "". Bits outside the five known ones are ignored. */
export function permissionsToLetters(bits: number): string {
  return LETTER_ORDER.filter((l) => (bits & PERMISSION_BITS[l]) !== 0).join('');
}

/** "rw" -> 3, "CDRWA" -> 31; any other character, or a letter twice, is an error. */
export function lettersToPermissions(letters: string): { ok: true; bits: number } | { ok: false; reason: string } {
  let bits = 0;
  for (const ch of letters.toLowerCase()) {
    if (!Object.hasOwn(PERMISSION_BITS, ch)) return { ok: false, reason: `"${ch}" is not a permission (use the letters c, d, r, w, a)` };
    const bit = PERMISSION_BITS[ch as PermissionLetter];
    if (bits & bit) return { ok: false, reason: `"${ch}" is given twice` };
    bits |= bit;
  }
  return { ok: true, bits };
}

/**
 * Checks an ACL id for its scheme, with the rules ZooKeeper's providers apply (so a bad entry is
 * refused before it can lock everyone out of a node): world -> "anyone"; digest ->
 * "user:base64(sha1)" (28 characters); ip -> an IPv4/IPv6 address, optionally /bits; auth -> any
 * (ZooKeeper substitutes the caller's authenticated ids).
 */
export function checkAclId(scheme: AclScheme, id: string): string | null {
  switch (scheme) {
    case 'world':
      return id === 'anyone' ? null : 'the world scheme takes the id "anyone"';
    case 'digest':
      return /^[^:]+:[A-Za-z0-9+/]{27}=$/.test(id) ? null : 'a digest id is "user:<base64 sha1 of user:password>" (28 characters after the colon)';
    case 'ip': {
      const [addr = '', bits, ...rest] = id.split('/');
      if (rest.length > 0) return 'an ip id is an address with an optional /bits';
      const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(addr);
      const isV4 = v4 !== null && v4.slice(1).every((o) => Number(o) <= 255);
      const isV6 = !isV4 && /^[0-9A-Fa-f:]+$/.test(addr) && addr.includes(':');
      if (!isV4 && !isV6) return `"${addr}" is not an IP address`;
      if (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= (isV4 ? 32 : 128))) return `"/${bits}" is not a valid prefix length`;
      return null;
    }
    case 'auth':
      return null;
    case 'sasl':
      // The authenticated name as the members report it (whoAmI): "keeper", or "keeper@EXAMPLE.COM" for Kerberos.
      return /^[^\s:]{1,256}$/.test(id) ? null : 'a sasl id is the SASL user or Kerberos principal ("keeper", "keeper@EXAMPLE.COM"), without spaces';
    case 'x509':
      // The client certificate's subject DN as the members report it ("CN=keeper,O=Example").
      return /^[A-Za-z.0-9]+=.+$/.test(id) && id.length <= 1024 ? null : 'an x509 id is a certificate subject DN ("CN=keeper,O=Example")';
    default: {
      const never: never = scheme;
      return never;
    }
  }
}
