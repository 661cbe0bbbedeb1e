/**
 * Contains node-zookeeper-client defect 1 (see the project notes): an error code the
 * library does not know (ZooKeeper 3.5+ codes such as QUOTA_EXCEEDED -125 or
 * THROTTLED_OP -127, sent under overload) makes its Exception.create throw
 * "Unknown code" from inside the socket data handler, which kills the whole process.
 * We wrap the module's factory once so unknown codes become ordinary exception objects.
 */
import { createRequire } from 'node:module';
import { ZK_ERROR_NAMES } from './errors.js';

interface ExceptionModule {
  create: (code: number, path?: string) => Error;
  __keeperPatched?: boolean;
}

const require = createRequire(import.meta.url);

export class UnknownZkCodeError extends Error {
  constructor(
    readonly code: number,
    readonly path?: string,
  ) {
    const name = ZK_ERROR_NAMES[code] ?? `ZK_ERROR_${code}`;
    super(`Exception: ${name}[${code}]${path ? `@${path}` : ''}`);
    this.name = name;
  }
  getCode(): number {
    return this.code;
  }
  getName(): string {
    return this.name;
  }
  getPath(): string | undefined {
    return this.path;
  }
}

export function patchNodeZookeeperClient(): void {
  const exceptionModule = require('node-zookeeper-client/lib/Exception.js') as ExceptionModule;
  if (exceptionModule.__keeperPatched) return;
  const original = exceptionModule.create;
  exceptionModule.create = (code: number, path?: string) => {
    try {
      return original(code, path);
    } catch {
      return new UnknownZkCodeError(code, path);
    }
  };
  exceptionModule.__keeperPatched = true;
}

patchNodeZookeeperClient();
