/**
 * vitest globalSetup of the integration projects: runs the shared-ensemble pool (ensemblePool.ts)
 * in vitest's main process, behind a small HTTP endpoint on loopback whose address it provides to
 * the test files (`inject('ensemblePool')`; sharedEnsemble.ts is the files' side). Files run in
 * worker processes, and an ensemble's JVMs must outlive any one file, so the main process owns
 * them. Nothing starts until a file asks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { POOL_PORT_OFFSETS } from '../../../scripts/sandbox/portOffsets.js';
import { EnsemblePool } from './ensemblePool.js';
// The `ensemblePool` entry of vitest's ProvidedContext is declared there.
import type {} from './sharedEnsemble.js';

async function body(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = process.env.KEEPER_POOL_LOG === '1' ? (line: string) => console.log(`[ensemble pool] ${line}`) : () => {};
  const pool = new EnsemblePool(POOL_PORT_OFFSETS, log);
  const server = http.createServer((req, res) => {
    const answer = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    void body(req)
      .then(async (b) => {
        if (req.method === 'POST' && req.url === '/lease') return answer(200, await pool.lease(String(b.who ?? 'a test file')));
        if (req.method === 'POST' && req.url === '/release') {
          pool.release(Number(b.id));
          return answer(200, {});
        }
        answer(404, { error: 'no such route' });
      })
      .catch((error: Error) => answer(500, { error: error.message }));
  });
  // A lease waits for an ensemble to start: no socket timeout on this side.
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  project.provide('ensemblePool', { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const { leases, resets, retired, started, waitedMs } = pool.stats;
    await pool.close();
    if (leases > 0)
      console.log(
        `shared ensembles: ${leases} files served by ${started} ensembles (${resets} resets, ${retired} retired); files waited ${waitedMs} ms for one in all`,
      );
  };
}
