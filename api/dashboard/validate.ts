/**
 * Validation from the dashboard's OpenAPI document (openapi.ts): request
 * bodies on the way in (a 400 with one detail per problem), and, for the
 * tests, every response on the way out.
 */
import type { ErrorObject } from 'ajv';
import { createSchemaCompiler } from '../openapi/ajv.ts';
import type { OpenApiDocument } from '../openapi/types.ts';
import { badRequest } from '../errors.ts';
import { dashboardOpenApi, OPERATIONS } from './openapi.ts';

const document = dashboardOpenApi();
const compiler = createSchemaCompiler(document as unknown as OpenApiDocument);
const named = (name: string) => compiler.compile({ $ref: `#/components/schemas/${name}` });

function describe(err: ErrorObject): { parameter: string; message: string } {
  const at = err.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (err.keyword === 'required') return { parameter: String(err.params.missingProperty), message: 'is required' };
  if (err.keyword === 'additionalProperties') return { parameter: String(err.params.additionalProperty), message: 'is not a known field' };
  return { parameter: at || 'body', message: err.message ?? 'is not valid' };
}

/** The body as the schema `name` describes it, or a 400 listing every problem. */
export function parseBody<T>(name: string, body: unknown): T {
  const validate = named(name);
  if (!validate(body)) {
    const seen = new Set<string>();
    // One detail per field: an empty name breaks minLength and pattern, the person needs to hear it once.
    const details = (validate.errors ?? []).filter((e) => e.keyword !== 'anyOf').map(describe).filter((d) => !seen.has(d.parameter) && seen.add(d.parameter));
    throw badRequest(details.length === 1 ? `${details[0]!.parameter} ${details[0]!.message}.` : `${details.length} fields are not valid.`, details);
  }
  return body as T;
}

const routes = OPERATIONS.map((op) => ({
  op,
  pattern: new RegExp(`^/dashboard/api${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** Problems of one answer against the document: an undocumented route or status, or a body that breaks its schema. */
export function checkDashboardResponse(method: string, path: string, status: number, body: unknown): string[] {
  const pathname = path.split('?')[0]!;
  const route = routes.find((r) => r.op.method === method.toLowerCase() && r.pattern.test(pathname));
  const schema = route ? route.op.responses[status] : undefined;
  if (status >= 400 || !route) {
    if (status < 400) return [`${method} ${pathname} is not in the dashboard document`];
    const validate = named('Error');
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  }
  if (schema === undefined) return [`status ${status} is not documented for ${method} ${route.op.path}`];
  if (schema === null) return body === undefined || body === '' ? [] : ['a body where none is documented'];
  const validate = named(schema);
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

export { document as dashboardDocument };
