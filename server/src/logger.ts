/** Structured logs (pino). Credentials are redacted wherever they might appear. */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/** `destination`: tests capture the output to prove no credential reaches it. */
export function createLogger(level = process.env.KEEPER_LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { app: 'keeper' },
    redact: {
      paths: [
        'auth',
        '*.auth',
        'credential',
        '*.credential',
        'password',
        '*.password',
        'passwordHash',
        '*.passwordHash',
        'token',
        '*.token',
        'adminToken',
        '*.adminToken',
        'viewerToken',
        '*.viewerToken',
        'csrfToken',
        '*.csrfToken',
        'headers.authorization',
        'headers.cookie',
        '*.headers.authorization',
        '*.headers.cookie',
        '*.headers["x-csrf-token"]',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
