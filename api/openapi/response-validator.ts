/**
 * Checks one HTTP answer against the OpenAPI document: the status is
 * documented for the operation, the body matches the schema of that status,
 * Content-Type is JSON in UTF-8, and the headers the document marks required
 * are there and well-formed. The test client runs it on every response of
 * every suite, and the fuzz test on thousands of hostile requests.
 *
 * What the document cannot say in OpenAPI is checked here and written in
 * its descriptions: the rate-limit headers come all together or not at all;
 * a 429 leaves 0 remaining; `invalid_parameter` on a keyed endpoint comes
 * after the rate limit, so it carries them.
 */
import { createSchemaCompiler } from './ajv.ts';
import { openApiDocument } from './document.ts';
import { JSON_CONTENT_TYPE, RATE_LIMIT_HEADERS, badRequest, forbidden, internalError, notFound } from './responses.ts';
import { isReference, type HeaderObject, type JsonSchema, type OperationObject, type PathItemObject, type Reference, type ResponseObject } from './types.ts';

export interface ResponseToValidate {
  method: string;
  /** As requested, query string included: `/api/v1/reviews?limit=2`. */
  path: string;
  status: number;
  /** Header names in any case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  body: unknown;
}

interface Route {
  template: string;
  exact: RegExp;
  /** How a lenient router may also match it: any letter case, a trailing slash. */
  loose: RegExp;
  item: PathItemObject;
}

const document = openApiDocument();
const compiler = createSchemaCompiler(document);

/** An unmatched path can only meet the checks that run before routing. */
const UNROUTED: Record<string, ResponseObject> = {
  '400': badRequest('keyless', true),
  '403': forbidden('keyless'),
  '404': notFound('keyless'),
  '500': internalError(),
};

function serverPath(url: string): string {
  return new URL(url).pathname.replace(/\/+$/, '');
}

function buildRoutes(): Route[] {
  return Object.entries(document.paths).map(([key, item]) => {
    const servers = item.servers ?? document.servers;
    const template = serverPath(servers[0]?.url ?? '/') + key;
    const source = template
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      .join('');
    return { template, exact: new RegExp(`^${source}$`), loose: new RegExp(`^${source}/?$`, 'i'), item };
  });
}

const routes = buildRoutes();

function pathOnly(path: string): string {
  const cut = path.search(/[?#]/);
  return cut === -1 ? path : path.slice(0, cut);
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

function headerValue(raw: string, header: HeaderObject): unknown {
  if (header.schema.type === 'integer') return /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
  return raw;
}

function bodyProblems(schema: JsonSchema, body: unknown): string[] {
  const validate = compiler.compile(schema);
  if (validate(body)) return [];
  return (validate.errors ?? []).slice(0, 8).map((e) => `body${e.instancePath} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`);
}

function isKeyed(operation: OperationObject): boolean {
  return operation.security === undefined || operation.security.length > 0;
}

function checkHeaders(response: ResponseObject, headers: Record<string, string>, problems: string[]): void {
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    if (isReference(declared)) {
      problems.push(`header ${name} is a $ref, which the validator does not follow`);
      continue;
    }
    const raw = headers[name.toLowerCase()];
    if (raw === undefined) {
      if (declared.required) problems.push(`header ${name} is missing`);
      continue;
    }
    if (!compiler.compile(declared.schema)(headerValue(raw, declared))) problems.push(`header ${name}: ${quoted(raw)} does not match its schema`);
  }
}

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

function checkRateLimit(response: ResponseObject, answer: Answer, operation: OperationObject | null, problems: string[]): void {
  const { status, body, headers } = answer;
  const documented = RATE_LIMIT_HEADERS.filter((name) => response.headers?.[name] !== undefined);
  if (documented.length === 0) return;
  const present = documented.filter((name) => headers[name.toLowerCase()] !== undefined);
  const missing = documented.filter((name) => headers[name.toLowerCase()] === undefined);
  // Parameters are checked after the rate limit (CONTRACT §3), so their 400 has been counted.
  const counted = status === 400 && operation !== null && isKeyed(operation) && (body as { error?: unknown } | undefined)?.error === 'invalid_parameter';
  if ((present.length > 0 || counted) && missing.length > 0) problems.push(`rate-limit headers come together: missing ${missing.join(', ')}`);
  const limit = Number(headers['x-ratelimit-limit']);
  const remaining = Number(headers['x-ratelimit-remaining']);
  if (remaining > limit) problems.push(`X-RateLimit-Remaining ${remaining} exceeds X-RateLimit-Limit ${limit}`);
  if (status === 429 && headers['x-ratelimit-remaining'] !== undefined && remaining !== 0) {
    problems.push(`a 429 must leave X-RateLimit-Remaining at 0, not ${remaining}`);
  }
}

function findRoute(pathname: string): { route: Route; loose: boolean } | null {
  const exact = routes.find((r) => r.exact.test(pathname));
  if (exact) return { route: exact, loose: false };
  const loose = routes.find((r) => r.loose.test(pathname));
  return loose ? { route: loose, loose: true } : null;
}

/** Problems with one response; empty when it matches the document. */
export function validateResponse(res: ResponseToValidate): string[] {
  const method = res.method.toUpperCase();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) headers[name.toLowerCase()] = value;

  const found = findRoute(pathOnly(res.path));
  const item = found?.route.item;
  const where = found ? `${method} ${found.route.template}` : `${method} (unknown path)`;
  let operation: OperationObject | null = null;
  let candidates: Record<string, ResponseObject | Reference> = {};
  if (item && method === 'OPTIONS' && item.options) {
    operation = item.options;
    candidates = { ...operation.responses };
  } else if (item && method === 'POST' && item.post) {
    operation = item.post;
    candidates = { ...operation.responses };
  } else if (item) {
    operation = item.get;
    const readOnly = method === 'GET' || method === 'HEAD';
    // GET and HEAD are never 405; every other method never succeeds.
    for (const [status, response] of Object.entries(operation.responses)) {
      if (readOnly ? status !== '405' : !/^[23]/.test(status)) candidates[status] = response;
    }
  }
  if (!operation || found?.loose) candidates = { ...UNROUTED, ...candidates };

  const response = candidates[String(res.status)];
  if (response === undefined) return [`${where}: status ${res.status} is not documented (documented: ${Object.keys(candidates).join(', ')})`];
  if (isReference(response)) return [`${where}: response ${res.status} is a $ref, which the validator does not follow`];

  const problems: string[] = [];
  const media = response.content?.['application/json'];
  if (!response.content && res.body !== undefined && res.body !== '' && res.body !== null) problems.push(`status ${res.status} has no body, but one came`);
  if (media) {
    const contentType = (headers['content-type'] ?? '').toLowerCase().replace(/\s+/g, '');
    if (contentType !== JSON_CONTENT_TYPE.replace(/\s+/g, '')) problems.push(`Content-Type is ${quoted(headers['content-type'] ?? '(none)')}, not ${JSON_CONTENT_TYPE}`);
    if (method === 'HEAD') {
      if (res.body !== undefined && res.body !== '' && res.body !== null) problems.push('a HEAD response has a body');
    } else if (res.body === undefined) {
      problems.push('body is missing or not JSON');
    } else {
      problems.push(...bodyProblems(media.schema, res.body));
    }
  }
  if (response.content?.['text/html'] && !/^text\/html;\s*charset=utf-8$/i.test(headers['content-type'] ?? '')) {
    problems.push(`Content-Type is ${quoted(headers['content-type'] ?? '(none)')}, not text/html; charset=utf-8`);
  }
  checkHeaders(response, headers, problems);
  checkRateLimit(response, { status: res.status, body: res.body, headers }, operation, problems);
  return problems.map((p) => `${where} → ${res.status}: ${p}`);
}

/**
 * Problems with a body alone, as the document describes the answer of
 * `method path` with `status`: for samples printed without their headers (the
 * docs' JSON samples, api/openapi/docs-samples.test.ts). Empty when it matches.
 */
export function validateAnswerBody(method: string, path: string, status: number, body: unknown): string[] {
  const found = findRoute(pathOnly(path));
  const where = `${method.toUpperCase()} ${found ? found.route.template : `${path} (unknown path)`} → ${status}`;
  if (!found || found.loose) return [`${where}: no such operation in the document`];
  const m = method.toUpperCase();
  const operation = m === 'OPTIONS' ? found.route.item.options : m === 'POST' ? found.route.item.post : found.route.item.get;
  const response = operation?.responses[String(status)];
  if (response === undefined) return [`${where}: status ${status} is not documented`];
  if (isReference(response)) return [`${where}: the response is a $ref, which the validator does not follow`];
  const media = response.content?.['application/json'];
  if (!media) return [`${where}: the document gives this answer no JSON body`];
  return bodyProblems(media.schema, body).map((p) => `${where}: ${p}`);
}

/** Problems with the body of a webhook delivery of `type`, against the document's `webhooks` object. */
export function validateWebhookBody(type: string, body: unknown): string[] {
  const item = document.webhooks[type];
  if (item === undefined) return [`webhook ${type}: no such event type in the document`];
  const media = item.post.requestBody.content['application/json'];
  if (!media) return [`webhook ${type}: the document gives it no JSON body`];
  return bodyProblems(media.schema, body).map((p) => `webhook ${type}: ${p}`);
}
