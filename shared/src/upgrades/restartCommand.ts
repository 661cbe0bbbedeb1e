/**
 * The ensemble's `restartCommand`: a shell command template such as
 * `ssh {host} sudo systemctl restart zookeeper` or `kubectl delete pod zk-{id}`. Placeholders
 * are filled shell-quoted (a host name from a config file must never become shell syntax), and
 * an unknown placeholder is refused when the config is read, not when a member is restarted.
 */
import { z } from 'zod';

export const RESTART_PLACEHOLDERS = ['id', 'host', 'clientPort', 'adminPort'] as const;
export type RestartPlaceholder = (typeof RESTART_PLACEHOLDERS)[number];

export interface RestartTarget {
  memberId: number | null;
  host: string;
  clientPort: number;
  adminPort: number | null;
}

export class RestartCommandError extends Error {
  override readonly name = 'RestartCommandError';
}

// `{{` and `}}` stand for literal braces; `{name}` is a placeholder.
const TOKEN = /\{\{|\}\}|\{([^{}]*)\}/g;
const KNOWN = new Set<string>(RESTART_PLACEHOLDERS);
const USE = RESTART_PLACEHOLDERS.map((p) => `{${p}}`).join(', ');

/**
 * POSIX single-quoting, as Python's shlex.quote does: words of safe characters stay as they are
 * (so `zk-{id}` reads `zk-2`), anything else goes in single quotes, an embedded quote as '"'"'.
 */
export function shellQuote(value: string): string {
  if (value !== '' && /^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

/** The template's problems, in words (empty when it is fine). */
export function restartTemplateErrors(template: string): string[] {
  const errors: string[] = [];
  if (template.trim() === '') errors.push('restartCommand is empty');
  for (const match of template.matchAll(TOKEN)) {
    const name = match[1];
    if (name !== undefined && !KNOWN.has(name))
      errors.push(`restartCommand has an unknown placeholder {${name}}: use ${USE} (write {{ and }} for literal braces)`);
  }
  const stray = template.replace(TOKEN, '');
  if (/[{}]/.test(stray)) errors.push('restartCommand has an unmatched brace: write {{ and }} for literal braces');
  return errors;
}

function valueOf(name: RestartPlaceholder, target: RestartTarget): string {
  const value = { id: target.memberId, host: target.host, clientPort: target.clientPort, adminPort: target.adminPort }[name];
  if (value === null) {
    const why = name === 'id' ? 'the configuration gives it no server id' : 'it has no AdminServer port';
    throw new RestartCommandError(`restartCommand uses {${name}}, but ${target.host}:${target.clientPort} has none: ${why}`);
  }
  return String(value);
}

/** The command line for one member; throws RestartCommandError on an unknown placeholder or a value the member lacks. */
export function fillRestartCommand(template: string, target: RestartTarget): string {
  const errors = restartTemplateErrors(template);
  if (errors.length > 0) throw new RestartCommandError(errors.join('; '));
  return template.replace(TOKEN, (token: string, name: string | undefined) => {
    if (name === undefined) return token === '{{' ? '{' : '}';
    return shellQuote(valueOf(name as RestartPlaceholder, target));
  });
}

/** The config field: checked when the configuration is loaded. */
export const restartCommandSchema = z
  .string()
  .trim()
  .superRefine((template, ctx) => {
    for (const message of restartTemplateErrors(template)) ctx.addIssue({ code: 'custom', message });
  });

/** How long the command may run before it is called failed (the step then pauses). */
export const restartCommandTimeoutSecondsSchema = z.number().int().positive().max(3600).default(120);
