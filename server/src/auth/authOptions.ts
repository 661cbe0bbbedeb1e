/**
 * Checks of the access settings that need more than their own shape: a grant naming an ensemble
 * Keeper does not serve, a user whose groups no grant matches, an http identity provider off this
 * machine. Refused at start, with the setting's path, rather than discovered by a locked-out user.
 */
import type { AuthOptions, EnsembleConfig } from '../config/types.js';
import { checkIssuerUrl } from './oidc/oidcClient.js';

export function checkAuthOptions(auth: AuthOptions, ensembles: readonly EnsembleConfig[]): void {
  const problems: string[] = [];
  const names = new Set(ensembles.map((e) => e.name));
  (auth.grants ?? []).forEach((grant, i) => {
    // With no ensemble configured yet (npm start adds the sandbox after), nothing to check against.
    if (grant.role === 'writer' && names.size > 0 && !names.has(grant.ensemble)) {
      problems.push(`auth.grants[${i}].ensemble: no ensemble is named "${grant.ensemble}" (configured: ${[...names].join(', ')})`);
    }
  });
  const granted = new Set((auth.grants ?? []).map((g) => g.group));
  (auth.users ?? []).forEach((user, i) => {
    if (user.role === undefined && !(user.groups ?? []).some((g) => granted.has(g))) {
      problems.push(`auth.users[${i}] (${user.name}): no role, and none of its groups is in auth.grants: it could never sign in`);
    }
  });
  if (auth.oidc) {
    const issuer = checkIssuerUrl(auth.oidc.issuer);
    if (issuer) problems.push(issuer);
  }
  if (problems.length > 0) throw new Error(`invalid access settings:\n  ${problems.join('\n  ')}`);
}
