/**
 * What `npm start` prints, once Keeper serves, about signing in. A token set in the environment
 * is a secret the operator already holds: it is named (which variable), never printed, so the
 * start-up output can be pasted into a ticket or kept in a log. A token Keeper generated itself
 * is printed in the sign-in URL, since nobody else knows it (loopback only, its file mode 0600).
 */
export interface SignInFacts {
  /** Where Keeper serves, without a trailing slash. */
  url: string;
  /** KEEPER_ADMIN_TOKEN / KEEPER_VIEWER_TOKEN are set. */
  adminToken: boolean;
  viewerToken: boolean;
  /** Users with passwords in the config file. */
  users: number;
  /** The admin token Keeper generated (no identity configured), or null. */
  generatedToken: string | null;
}

export function signInLines(facts: SignInFacts): string[] {
  const { url } = facts;
  if (facts.generatedToken !== null) {
    return ['To sign in, open this URL (it holds the admin token: do not share it):', `    ${url}/?token=${facts.generatedToken}`];
  }
  const tokens = [
    ...(facts.adminToken ? [{ variable: 'KEEPER_ADMIN_TOKEN', role: 'admin (reads and writes)' }] : []),
    ...(facts.viewerToken ? [{ variable: 'KEEPER_VIEWER_TOKEN', role: 'viewer (reads only)' }] : []),
  ];
  const lines: string[] = [];
  if (tokens.length > 0) {
    lines.push(`To sign in, open ${url}/login and paste a token (not printed here: it is the value of the variable):`);
    for (const t of tokens) lines.push(`    ${t.role.padEnd(24)} ${t.variable}`);
    const first = tokens[0]!.variable;
    lines.push(`or open the sign-in URL from a shell that has it:   xdg-open "${url}/?token=$${first}"`);
    lines.push(`Scripts send it as a bearer token:   curl -H "Authorization: Bearer $${first}" ${url}/api/ensembles`);
  }
  if (facts.users > 0) {
    const who = `${facts.users} ${facts.users === 1 ? 'user' : 'users'} of the config file`;
    lines.push(
      tokens.length > 0
        ? `Users sign in at ${url}/login with a name and password (${who}).`
        : `To sign in, open ${url}/login with a name and password (${who}).`,
    );
  }
  return lines;
}
