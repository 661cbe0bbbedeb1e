/**
 * The ensemble's `restartCommand`, in one of three shapes:
 *   ["ssh", "{host}", "sudo", "systemctl", "restart", "zookeeper"]   an argv array, run with no shell
 *   "kubectl delete pod zk-{id}"                                     words split on spaces, run with no shell
 *   {"shell": true, "line": "ssh {host} restart && logger {id}"}     /bin/sh -c, only when asked for
 * Without a shell a placeholder's value is one argument whatever it holds. In the shell form the
 * values are shell-quoted, which is safe only where a word may start, so a placeholder inside
 * quotes or backticks is refused. In every form the values are checked first: {host} must be a
 * host name or address (never `-oProxyCommand=…`, which ssh would read as an option) and the
 * ports and id numbers. Template errors are refused when the config is read, not at a restart.
 */
import { z } from 'zod/mini';

export const RESTART_PLACEHOLDERS = ['id', 'host', 'clientPort', 'adminPort'] as const;
export type RestartPlaceholder = (typeof RESTART_PLACEHOLDERS)[number];

export interface RestartTarget {
  memberId: number | null;
  host: string;
  clientPort: number;
  adminPort: number | null;
}

/** The config field as written. */
export type RestartCommandConfig = string | readonly string[] | { shell: true; line: string };

/** What runs: the program and its arguments (`/bin/sh -c line` for the shell form), and the line shown to admins. */
export interface FilledRestartCommand {
  argv: string[];
  shell: boolean;
  display: string;
}

export class RestartCommandError extends Error {
  override readonly name = 'RestartCommandError';
}

// `{{` and `}}` stand for literal braces; `{name}` is a placeholder.
const TOKEN = /\{\{|\}\}|\{([^{}]*)\}/g;
const KNOWN = new Set<string>(RESTART_PLACEHOLDERS);
const USE = RESTART_PLACEHOLDERS.map((p) => `{${p}}`).join(', ');
/** Shell syntax that, without a shell, would reach the program as part of a word. */
const SHELL_SYNTAX = /['"`$;&|<>\\\n\r]/;
const SHAPES = 'write it as an array of words (["ssh", "{host}", "…"]), or as {"shell": true, "line": "…"} to run it in /bin/sh';

/**
 * POSIX single-quoting, as Python's shlex.quote does: words of safe characters stay as they are
 * (so `zk-{id}` reads `zk-2`), anything else goes in single quotes, an embedded quote as '"'"'.
 */
export function shellQuote(value: string): string {
  if (value !== '' && /^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

function placeholderErrors(text: string): string[] {
  const errors: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const name = match[1];
    if (name !== undefined && !KNOWN.has(name))
      errors.push(`restartCommand has an unknown placeholder {${name}}: use ${USE} (write {{ and }} for literal braces)`);
  }
  if (/[{}]/.test(text.replace(TOKEN, ''))) errors.push('restartCommand has an unmatched brace: write {{ and }} for literal braces');
  return errors;
}

/**
 * Placeholders the shell would read inside quotes or backticks, where a quoted value is not one
 * word: `"{host}"` or `'{host}'` around `$(…)`, `;` or a quote in the value ran it.
 */
function quotedPlaceholders(line: string): string[] {
  const found: string[] = [];
  let quote: '"' | "'" | '`' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== "'" && c === '\\') {
      i++;
      continue;
    }
    if (quote === null && (c === '"' || c === "'" || c === '`')) quote = c;
    else if (c === quote) quote = null;
    else if (c === '{' && line[i + 1] !== '{') {
      const end = line.indexOf('}', i);
      const name = end > i ? line.slice(i + 1, end) : '';
      if (quote !== null && KNOWN.has(name)) found.push(`{${name}} inside ${quote === '`' ? 'backticks' : `${quote === '"' ? 'double' : 'single'} quotes`}`);
      if (end > i) i = end;
    } else if (c === '{') i++;
  }
  return found;
}

/** The template's problems, in words (empty when it is fine). */
export function restartCommandErrors(config: RestartCommandConfig): string[] {
  if (typeof config === 'string') {
    if (config.trim() === '') return ['restartCommand is empty'];
    const errors = placeholderErrors(config);
    const syntax = SHELL_SYNTAX.exec(config);
    if (syntax) errors.push(`restartCommand runs without a shell, so ${JSON.stringify(syntax[0])} would reach the program as part of a word: ${SHAPES}`);
    return errors;
  }
  if (Array.isArray(config)) {
    const argv = config as readonly string[];
    if (argv.length === 0 || argv[0]!.trim() === '') return ['restartCommand names no program: its first word is empty'];
    const errors = argv.flatMap(placeholderErrors);
    if ([...argv[0]!.matchAll(TOKEN)].some((m) => m[1] !== undefined))
      errors.push('restartCommand: the program itself (the first word) cannot hold a placeholder');
    return errors;
  }
  const { line } = config as { line: string };
  if (line.trim() === '') return ['restartCommand is empty'];
  const errors = placeholderErrors(line);
  for (const where of quotedPlaceholders(line)) {
    errors.push(`restartCommand puts ${where}: Keeper quotes each value itself, which is safe only outside quotes; write the placeholder unquoted`);
  }
  return errors;
}

/** A DNS name (labels of letters, digits, `-` and `_`, none starting with `-`), an IPv4 or an IPv6 address. */
export function isHostNameOrAddress(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  if (/^\[?[0-9A-Fa-f:.]+\]?$/.test(host) && host.includes(':')) return /^\[[^\]]+\]$|^[^[\]]+$/.test(host);
  return host.split('.').every((label) => /^[A-Za-z0-9_][A-Za-z0-9_-]{0,62}$/.test(label));
}

const isPort = (n: number | null): boolean => n !== null && Number.isInteger(n) && n >= 1 && n <= 65_535;

function valueOf(name: RestartPlaceholder, target: RestartTarget): string {
  const where = `${JSON.stringify(target.host).slice(0, 80)}:${target.clientPort}`;
  switch (name) {
    case 'id':
      if (target.memberId === null) throw new RestartCommandError(`restartCommand uses {id}, but ${where} has none: the configuration gives it no server id`);
      if (!Number.isSafeInteger(target.memberId) || target.memberId < 0)
        throw new RestartCommandError(`restartCommand: the server id of ${where} is not a number`);
      return String(target.memberId);
    case 'host':
      if (!isHostNameOrAddress(target.host))
        throw new RestartCommandError(
          `restartCommand was not run: the member's host ${JSON.stringify(target.host).slice(0, 80)} is not a host name or address`,
        );
      return target.host;
    case 'clientPort':
      if (!isPort(target.clientPort)) throw new RestartCommandError(`restartCommand was not run: the client port of ${where} is not a port number`);
      return String(target.clientPort);
    case 'adminPort':
      if (target.adminPort === null) throw new RestartCommandError(`restartCommand uses {adminPort}, but ${where} has none: it has no AdminServer port`);
      if (!isPort(target.adminPort)) throw new RestartCommandError(`restartCommand was not run: the AdminServer port of ${where} is not a port number`);
      return String(target.adminPort);
    default: {
      const never: never = name;
      throw new RestartCommandError(`unknown placeholder ${String(never)}`);
    }
  }
}

const fill = (text: string, target: RestartTarget, quote: (v: string) => string) =>
  text.replace(TOKEN, (token: string, name: string | undefined) =>
    name === undefined ? (token === '{{' ? '{' : '}') : quote(valueOf(name as RestartPlaceholder, target)),
  );

/** The command for one member; throws RestartCommandError on a template error or a value that is not what its placeholder must be. */
export function fillRestartCommand(config: RestartCommandConfig, target: RestartTarget): FilledRestartCommand {
  const errors = restartCommandErrors(config);
  if (errors.length > 0) throw new RestartCommandError(errors.join('; '));
  if (typeof config === 'string' || Array.isArray(config)) {
    const words = typeof config === 'string' ? config.trim().split(/[ \t]+/) : (config as readonly string[]);
    const argv = words.map((w) => fill(w, target, (v) => v));
    return { argv, shell: false, display: argv.map(shellQuote).join(' ') };
  }
  const line = fill((config as { line: string }).line, target, shellQuote);
  return { argv: ['/bin/sh', '-c', line], shell: true, display: line };
}

/** The config field: checked when the configuration is loaded. */
export const restartCommandSchema = z
  .union([
    z.string().check(z.trim()),
    z.array(z.string().check(z.maxLength(4_096))).check(z.minLength(1), z.maxLength(256)),
    z.strictObject({ shell: z.literal(true), line: z.string().check(z.trim()) }),
  ])
  .check(
    z.superRefine((config, ctx) => {
      for (const message of restartCommandErrors(config)) ctx.addIssue({ code: 'custom', message });
    }),
  );

/** How long the command may run before it is called failed (the step then pauses). */
export const restartCommandTimeoutSecondsSchema = z._default(z.int().check(z.positive(), z.lte(3600)), 120);
