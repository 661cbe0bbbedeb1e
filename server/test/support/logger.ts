import { pino } from 'pino';

/** Quiet by default; KEEPER_TEST_LOG=debug shows the gateway's story while debugging a test. */
export const testLogger = pino({ level: process.env.KEEPER_TEST_LOG ?? 'silent' });
