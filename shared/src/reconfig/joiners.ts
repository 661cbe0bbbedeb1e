/**
 * How to start a member before a resize adds it (issue 24 item 1): ZooKeeper adds only a member
 * that is already running and connected to the leader as a learner. It is started with
 * `reconfigEnabled=true`, `standaloneEnabled=false` and a dynamic configuration file holding the
 * current members plus itself (checked on 3.8.0: it then waits, answering `srvr` as a follower
 * that does not vote, until `reconfig -add` names it). Keeper writes those lines for it, and
 * fills the ensemble's `startCommand` template when one is configured.
 */
import { z } from 'zod/mini';
import { isMemberHost, isMemberPort } from './address.js';
import type { ConfigMember } from './dynamicConfig.js';

export const START_PLACEHOLDERS = ['id', 'host', 'quorumPort', 'electionPort', 'clientHost', 'clientPort', 'role'] as const;
export type StartPlaceholder = (typeof START_PLACEHOLDERS)[number];

/** The settings a joiner must share with the ensemble (from a member's `conf`); null where unknown. */
export interface EnsembleTimings {
  tickTime: number | null;
  initLimit: number | null;
  syncLimit: number | null;
}

export const joinerStartSchema = z.object({
  memberId: z.int(),
  role: z.enum(['participant', 'observer']),
  /** The `server.N=` line the resize adds. */
  line: z.string(),
  /** The member's dynamic configuration file: the current members plus itself. */
  dynamicConfig: z.string(),
  /** The member's zoo.cfg (its data directory and file names are the operator's). */
  zooCfg: z.string(),
  /** The ensemble's startCommand filled for it; null without one (and for anyone but an admin: it may hold a secret). */
  startCommand: z.nullable(z.string()),
  /** True when a startCommand is configured but withheld from this reader (not an admin). */
  startCommandWithheld: z.optional(z.boolean()),
});
export type JoinerStart = z.infer<typeof joinerStartSchema>;

const TOKEN = /\{\{|\}\}|\{([^{}]*)\}/g;

/** A startCommand template's problems, in words (empty when it is fine): read when the config is. */
export function startCommandErrors(template: string): string[] {
  if (template.trim() === '') return ['startCommand is empty'];
  const known = new Set<string>(START_PLACEHOLDERS);
  const errors: string[] = [];
  for (const match of template.matchAll(TOKEN)) {
    const name = match[1];
    if (name !== undefined && !known.has(name))
      errors.push(
        `startCommand has an unknown placeholder {${name}}: use ${START_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')} (write {{ and }} for literal braces)`,
      );
  }
  if (/[{}]/.test(template.replace(TOKEN, ''))) errors.push('startCommand has an unmatched brace: write {{ and }} for literal braces');
  return errors;
}

export class StartCommandError extends Error {
  override readonly name = 'StartCommandError';
}

/**
 * One placeholder's value, checked again here although parseAddLine refuses such lines: the filled
 * line is pasted into a shell, so a value that is not a host name, an address or a number (`$(id)`,
 * `-oProxyCommand=…`, an empty port) is never written into it, whatever the member came from.
 */
function startValue(name: StartPlaceholder, member: ConfigMember): string {
  const who = `member ${member.id}`;
  const host = (what: string, value: string) => {
    if (!isMemberHost(value))
      throw new StartCommandError(`startCommand was not filled: the ${what} of ${who}, ${JSON.stringify(value.slice(0, 80))}, is not a host name or address`);
    return value;
  };
  const port = (what: string, value: number | null) => {
    if (!isMemberPort(value)) throw new StartCommandError(`startCommand was not filled: ${who} has no ${what} from 1 to 65535`);
    return String(value);
  };
  switch (name) {
    case 'id':
      if (!Number.isSafeInteger(member.id) || member.id < 1) throw new StartCommandError(`startCommand was not filled: ${who}'s id is not a server id`);
      return String(member.id);
    case 'host':
      return host('host', member.host);
    case 'quorumPort':
      return port('quorum port', member.peerPort);
    case 'electionPort':
      return port('election port', member.electionPort);
    case 'clientHost':
      return host('client host', member.clientHost ?? member.host);
    case 'clientPort':
      return port('client port', member.clientPort);
    case 'role':
      if (member.role !== 'participant' && member.role !== 'observer')
        throw new StartCommandError(`startCommand was not filled: ${who}'s role is not participant or observer`);
      return member.role;
    default: {
      const never: never = name;
      throw new StartCommandError(`unknown placeholder ${String(never)}`);
    }
  }
}

/** The template with the member's values; throws StartCommandError on a value that is not what its placeholder must be. */
export function fillStartCommand(template: string, member: ConfigMember): string {
  const known = new Set<string>(START_PLACEHOLDERS);
  return template.replace(TOKEN, (token, name: string | undefined) =>
    name === undefined ? token[0]! : known.has(name) ? startValue(name as StartPlaceholder, member) : token,
  );
}

/** What the joiner `member` needs, given the configuration it will join (`current`: /zookeeper/config's members). */
export function joinerStart(current: readonly ConfigMember[], member: ConfigMember, timings: EnsembleTimings, startCommand: string | null): JoinerStart {
  const line = `server.${member.id}=${member.value}`;
  const dynamicConfig = [...current.filter((m) => m.id !== member.id).map((m) => `server.${m.id}=${m.value}`), line].join('\n');
  const zooCfg = [
    `# zoo.cfg of member ${member.id}; write ${member.id} into <dataDir>/myid first`,
    `tickTime=${timings.tickTime ?? 2000}`,
    `initLimit=${timings.initLimit ?? 10}`,
    `syncLimit=${timings.syncLimit ?? 5}`,
    'dataDir=<this member’s data directory>',
    'reconfigEnabled=true',
    'standaloneEnabled=false',
    'dynamicConfigFile=<this member’s zoo.cfg.dynamic, holding the lines below>',
  ].join('\n');
  return {
    memberId: member.id,
    role: member.role,
    line,
    dynamicConfig,
    zooCfg,
    startCommand: startCommand === null ? null : fillStartCommand(startCommand, member),
  };
}
