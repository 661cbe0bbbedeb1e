/** Structured logs (pino). Credentials are redacted wherever they might appear. */
import { pino, type Logger } from 'pino';

export function createLogger(level = process.env.KEEPER_LOG_LEVEL ?? 'info'): Logger {
  return pino({
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
  });
}
