/**
 * shared/ compiles without Node's types (it runs in the browser too); the restartCommand test
 * alone runs a real shell, so it declares the one call it needs instead of pulling in @types/node.
 */
declare module 'node:child_process' {
  export function execFileSync(file: string, args: readonly string[], options: { encoding: 'utf8' }): string;
}
