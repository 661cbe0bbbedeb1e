/**
 * What each audience sees of the console's own ZooKeeper session and its ensemble's summary: one
 * place for every channel that carries them (GET /api/ensembles and /api/ensembles/{name}, the
 * socket's welcome, the consoleSession topic), so none forgets a mask (issue 34 item 11).
 *  - admins: all of it;
 *  - viewers and writers: not Keeper's ZooKeeper identities (whoAmI's answer, the SASL principal),
 *    nor the file paths a TLS or SASL problem names ("cannot read the client key file /…");
 *  - a share link without the ensemble views: nothing of the members either (the connection
 *    string, the member the session is on, the addresses in the notes) nor the session's id:
 *    the link's reach is its subtree, and the session's state and "as of" are all it needs.
 */
import type { ConsoleSessionSnapshot, EnsembleSummary, Role, ShareScope } from '@keeper/shared';

export type SessionAudience = 'admin' | 'reader' | 'subtreeLink';

export function sessionAudience(role: Role, scope: ShareScope | null | undefined): SessionAudience {
  if (scope) return scope.ensembleViews ? 'reader' : 'subtreeLink';
  return role === 'admin' ? 'admin' : 'reader';
}

/** Two or more absolute path segments ("/etc/keeper/client.key"): a file on Keeper's machine. */
const FILE_PATH = /(?:\/[^\s/:'",;()[\]]+){2,}\/?/g;
const WITHHELD_PATH = '(a file on the Keeper server)';

export function withoutFilePaths(text: string): string {
  return text.replace(FILE_PATH, WITHHELD_PATH);
}

function maskText(text: string | null): string | null {
  return text === null ? null : withoutFilePaths(text);
}

export function sessionFor(session: ConsoleSessionSnapshot, audience: SessionAudience): ConsoleSessionSnapshot {
  if (audience === 'admin') return session;
  const subtree = audience === 'subtreeLink';
  const connection = session.connection;
  return {
    ...session,
    ...(subtree ? { sessionId: null, member: null } : {}),
    timeline: session.timeline.map((entry) => {
      const { note, ...rest } = entry;
      if (subtree) return { ...rest, sessionId: null, member: null };
      return note === undefined ? rest : { ...rest, note: withoutFilePaths(note) };
    }),
    ...(connection
      ? {
          connection: {
            identity: null,
            identityNote: null,
            tls: maskText(connection.tls),
            // The mechanism, not who Keeper is ("GSSAPI as keeper@KEEPER.TEST" → "GSSAPI").
            sasl: connection.sasl === null ? null : (connection.sasl.split(' ')[0] ?? null),
            warning: maskText(connection.warning),
            problem: connection.problem
              ? {
                  ...connection.problem,
                  message: subtree ? 'the console cannot connect to the ensemble (admins see why)' : withoutFilePaths(connection.problem.message),
                  member: subtree ? '' : connection.problem.member,
                }
              : null,
            readOnly: connection.readOnly && subtree ? { ...connection.readOnly, member: null, memberId: null } : connection.readOnly,
          },
        }
      : {}),
  };
}

export function summaryFor(summary: EnsembleSummary, audience: SessionAudience): EnsembleSummary {
  if (audience === 'admin') return summary;
  return {
    name: summary.name,
    connectionString: audience === 'subtreeLink' ? '' : summary.connectionString,
    session: sessionFor(summary.session, audience),
  };
}
