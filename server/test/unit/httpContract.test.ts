/**
 * The HTTP contract's tables agree with the code that sends errors, and its OpenAPI document is
 * one a validator accepts: every ZooKeeper code the gateway can name has a status, every schema
 * in the document compiles as JSON Schema 2020-12, and each route's error statuses list exactly
 * the codes the table sends with that status.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, API_ERROR_STATUS, HTTP_ROUTES, buildOpenApiDocument, isApiErrorCode } from '@keeper/shared';
import { ZK_ERROR_NAMES } from '../../src/zk/errors.js';
import { OpError, toOpError } from '../../src/admin/opError.js';

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
const doc = buildOpenApiDocument('test') as { openapi: string; paths: Record<string, Record<string, Operation>> };

describe('error codes', () => {
  it('has a status for every code ZooKeeper and the gateway can name', () => {
    const gatewayFailures = ['DEADLINE_EXCEEDED', 'OVERLOADED', 'CLOSED', 'INVALID_PATH', 'NOT_CONNECTED', 'OUTCOME_UNKNOWN'];
    for (const code of [...Object.values(ZK_ERROR_NAMES), ...gatewayFailures]) expect(isApiErrorCode(code), code).toBe(true);
  });

  it('turns a ZooKeeper code the contract does not list into ZOOKEEPER_ERROR, naming it', () => {
    const e = toOpError({ code: -999, message: 'new' }, '/a');
    expect(e).toBeInstanceOf(OpError);
    expect(e.code).toBe('ZOOKEEPER_ERROR');
    expect(e.message).toContain('ZK_ERROR_-999');
    expect(toOpError({ code: -101 }, '/a').code).toBe('NO_NODE');
  });

  it('sends 4xx for the caller, 5xx for Keeper and ZooKeeper', () => {
    for (const code of API_ERROR_CODES) expect(API_ERROR_STATUS[code], code).toBeGreaterThanOrEqual(400);
    expect(API_ERROR_STATUS.NO_NODE).toBe(404);
    expect(API_ERROR_STATUS.BAD_VERSION).toBe(409);
    expect(API_ERROR_STATUS.OUT_OF_SCOPE).toBe(403);
    expect(API_ERROR_STATUS.CONNECTION_LOSS).toBe(503);
  });
});

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with one operation per route', () => {
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.values(doc.paths).flatMap((p) => Object.keys(p));
    expect(operations).toHaveLength(HTTP_ROUTES.length);
    for (const route of HTTP_ROUTES) expect(doc.paths[route.path]?.[route.method], `${route.method} ${route.path}`).toBeDefined();
  });

  it('holds schemas a 2020-12 validator compiles, and error codes under the status the table gives them', () => {
    const ajv = new Ajv2020({ strict: false });
    let compiled = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const schema = response.content?.['application/json']?.schema as
            { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } | undefined;
          if (!schema) continue;
          expect(() => ajv.compile(schema), `${method} ${path} ${status}`).not.toThrow();
          compiled++;
          if (Number(status) < 400) continue;
          const codes = schema.properties?.error?.properties?.code?.enum ?? [];
          expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
          for (const code of codes) expect(isApiErrorCode(code) && API_ERROR_STATUS[code], `${method} ${path} ${code}`).toBe(Number(status));
        }
      }
    }
    expect(compiled).toBeGreaterThan(HTTP_ROUTES.length * 3);
  });
});
