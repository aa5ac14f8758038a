/**
 * Response objects of the document: the headers every answer carries and one
 * builder per error status, each with examples. Which headers a response
 * must carry is written here (`required`) and enforced by
 * `response-validator.ts`.
 */
import { FORBIDDEN_MESSAGE, INVITATIONS_FORBIDDEN_MESSAGE, MAX_ERROR_DETAILS, UNAUTHORIZED_MESSAGE, type ErrorSchemaName } from './error-schemas.ts';
import { ref } from './refs.ts';
import type { SchemaName } from './schemas.ts';
import type { ExampleObject, HeaderObject, JsonSchema, ResponseObject } from './types.ts';

/** Every response body is JSON in UTF-8; the validator requires exactly this Content-Type. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Sent together or not at all. */
export const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'] as const;

function requestIdHeader(): HeaderObject {
  return {
    description: "Identifies the request in the service's logs; quote it when reporting a problem. Present on every response.",
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
    example: '6f1c2b9e-3d4a-4e8f-9b1a-2c3d4e5f6a7b',
  };
}

function rateLimitHeaders(required: boolean): Record<string, HeaderObject> {
  const when = required ? '' : ' Present when the request was authenticated (the limit of its organization).';
  return {
    'X-RateLimit-Limit': {
      description: `Requests per minute allowed to the organization (all its keys together): 60 on Growth, 200 on Agency unless agreed otherwise.${when}`,
      required,
      schema: { type: 'integer', minimum: 1 },
      example: 60,
    },
    'X-RateLimit-Remaining': {
      description: `Requests left in the current window, this one counted.${when}`,
      required,
      schema: { type: 'integer', minimum: 0 },
      example: 57,
    },
    'X-RateLimit-Reset': {
      description: `When the current window ends, in Unix epoch seconds.${when}`,
      required,
      schema: { type: 'integer', minimum: 1_000_000_000 },
      example: 1795262460,
    },
    'RateLimit-Policy': {
      description: `The same limit in the IETF draft form (draft-ietf-httpapi-ratelimit-headers-07): requests per window and the window in seconds.${when}`,
      required,
      schema: { type: 'string', pattern: '^\\d+;w=\\d+$' },
      example: '60;w=60',
    },
    RateLimit: {
      description: `The IETF draft form of the current state: limit, requests remaining, seconds until the window ends.${when}`,
      required,
      schema: { type: 'string', pattern: '^limit=\\d+, remaining=\\d+, reset=\\d+$' },
      example: 'limit=60, remaining=57, reset=42',
    },
  };
}

type HeaderSet = Record<string, HeaderObject>;

function response(description: string, schema: JsonSchema, headers: HeaderSet, examples?: Record<string, ExampleObject>): ResponseObject {
  return {
    description,
    headers: { 'X-Request-Id': requestIdHeader(), ...headers },
    content: { 'application/json': examples ? { schema, examples } : { schema } },
  };
}

function errorBody(error: string, message: string, details: unknown[] = []): { value: unknown } {
  return { value: { error, message, details } };
}

function oneOfErrors(names: ErrorSchemaName[]): JsonSchema {
  const [only] = names;
  return names.length === 1 && only ? ref(only) : { oneOf: names.map((name) => ref(name)) };
}

/** Where an operation sits in the check order decides which errors and headers it can answer with. */
export type Access = 'api' | 'keyless';

export function ok(description: string, schema: SchemaName, headers: HeaderSet = {}, example?: unknown): ResponseObject {
  return response(description, ref(schema), headers, example === undefined ? undefined : { ok: { value: example } });
}

/** 202: accepted, the work (mail) follows. */
export function accepted(description: string, schema: SchemaName, example: unknown): ResponseObject {
  return response(description, ref(schema), rateLimitHeaders(true), { accepted: { value: example } });
}

/** A 200 whose body is an HTML fragment (the server-rendered widget). */
export function okHtml(description: string, headers: HeaderSet, example: string): ResponseObject {
  return {
    description,
    headers: { 'X-Request-Id': requestIdHeader(), ...headers },
    content: { 'text/html': { schema: { type: 'string' }, examples: { ok: { value: example } } } },
  };
}

export function okHeaders(access: Access): HeaderSet {
  return access === 'api' ? rateLimitHeaders(true) : {};
}

function allowOrigin(): HeaderObject {
  return {
    description: 'Any page may read it: the data is public and carries no credentials.',
    required: true,
    schema: { const: '*' },
  };
}

function cacheHeaders(): HeaderSet {
  return {
    'Cache-Control': {
      description: 'Browsers and shared caches may keep it for a short while.',
      required: true,
      schema: { type: 'string', pattern: 'max-age=\\d+' },
      example: 'public, max-age=60, stale-while-revalidate=60',
    },
    ETag: {
      description: 'Validator of this version of the data; send it back in If-None-Match.',
      required: true,
      schema: { type: 'string', pattern: '^(?:W/)?"[\\x21\\x23-\\x7e]*"$' },
      example: '"3q2-7wEjXcC4Vf1y0aJb8rLmTQk"',
    },
  };
}

export function publicWidgetHeaders(): HeaderSet {
  return { 'Access-Control-Allow-Origin': allowOrigin(), ...cacheHeaders(), ...rateLimitHeaders(false) };
}

/** A response without a body (304, 204): no Content-Type to check. */
function bare(description: string, headers: HeaderSet): ResponseObject {
  return { description, headers: { 'X-Request-Id': requestIdHeader(), ...headers } };
}

export function notModified(): ResponseObject {
  return bare('The data has not changed since the ETag sent in If-None-Match. No body.', { 'Access-Control-Allow-Origin': allowOrigin(), ...cacheHeaders() });
}

export function preflight(): ResponseObject {
  return bare('CORS preflight accepted. No body.', {
    'Access-Control-Allow-Origin': allowOrigin(),
    'Access-Control-Allow-Methods': {
      description: 'The methods a page may use.',
      required: true,
      schema: { type: 'string', pattern: '\\bGET\\b' },
      example: 'GET, HEAD, OPTIONS',
    },
    'Access-Control-Max-Age': {
      description: 'Seconds a browser may cache this preflight.',
      required: true,
      schema: { type: 'integer', minimum: 0 },
      example: 86400,
    },
  });
}

const invalidParameterExample = errorBody('invalid_parameter', 'Invalid query parameters: limit, min_rating.', [
  { parameter: 'limit', message: 'must be an integer from 1 to 100' },
  { parameter: 'min_rating', message: 'unknown parameter; did you mean minRating?' },
]);
const apiKeyInQueryExample = errorBody(
  'api_key_in_query',
  'API keys must be sent in the Authorization header (Authorization: Bearer <API_KEY>), never in the query string. Rotate this key: URLs end up in logs.',
  [{ parameter: 'api_key', message: 'API keys are not accepted as query parameters.' }],
);

/** 400. `keyInQueryOnly`: endpoints that ignore their query string except for API keys. */
export function badRequest(access: Access, keyInQueryOnly = false): ResponseObject {
  if (keyInQueryOnly) {
    return response('An API key was sent in the query string.', ref('ApiKeyInQueryError'), {}, { apiKeyInQuery: apiKeyInQueryExample });
  }
  const description =
    access === 'api'
      ? `\`invalid_parameter\`: a query parameter is unknown, repeated, empty or out of bounds; one detail per problem (at most ${MAX_ERROR_DETAILS}), checked after authentication and the rate limit, so it carries the rate-limit headers. \`api_key_in_query\`: an API key was sent in the query string; refused before anything else and without rate-limit headers.`
      : `\`invalid_parameter\`: this endpoint takes no query parameter. \`api_key_in_query\`: an API key was sent in the query string.`;
  return response(description, oneOfErrors(['InvalidParameterError', 'ApiKeyInQueryError']), access === 'api' ? rateLimitHeaders(false) : {}, {
    invalidParameter: invalidParameterExample,
    apiKeyInQuery: apiKeyInQueryExample,
  });
}

export function unauthorized(): ResponseObject {
  return response(
    'The API key is missing, malformed, unknown, expired or revoked. The body is always exactly the example.',
    ref('UnauthorizedError'),
    {
      'WWW-Authenticate': {
        description: 'The authentication scheme to use.',
        required: true,
        schema: { type: 'string', pattern: '^Bearer(?:\\s|$)' },
        example: 'Bearer',
      },
    },
    { unauthorized: errorBody('unauthorized', UNAUTHORIZED_MESSAGE) },
  );
}

const httpsRequiredExample = errorBody('https_required', 'This API is served over HTTPS only. Resend the request to the https:// URL.');

export function forbidden(access: Access): ResponseObject {
  if (access === 'keyless') {
    return response('The request came over plain HTTP. It is never redirected.', ref('HttpsRequiredError'), {}, { httpsRequired: httpsRequiredExample });
  }
  return response(
    "`forbidden`: the key is valid but the organization's plan has no API access (body exactly as the example). `https_required`: the request came over plain HTTP; it is never redirected.",
    oneOfErrors(['ForbiddenError', 'HttpsRequiredError']),
    {},
    { forbidden: errorBody('forbidden', FORBIDDEN_MESSAGE), httpsRequired: httpsRequiredExample },
  );
}

/** 403 of the invitation operations: no API access on the plan, or a key without `invitations:write`. */
export function invitationsForbidden(): ResponseObject {
  return response(
    "`forbidden`, either because the organization's plan has no API access, or because the key lacks the permission `invitations:write` (each body exactly as its example). `https_required`: the request came over plain HTTP.",
    oneOfErrors(['ForbiddenError', 'InvitationsForbiddenError', 'HttpsRequiredError']),
    {},
    { forbidden: errorBody('forbidden', FORBIDDEN_MESSAGE), noPermission: errorBody('forbidden', INVITATIONS_FORBIDDEN_MESSAGE), httpsRequired: httpsRequiredExample },
  );
}

/** 400 of an operation that takes a JSON body: the body's fields are checked like query parameters. */
export function badBody(): ResponseObject {
  return response(
    `\`invalid_parameter\`: the body is not JSON (\`Content-Type: application/json\`), or an invitation's field is missing, unknown or out of bounds: one detail per field, named \`email\` for one invitation and \`data[3].email\` in a batch (at most ${MAX_ERROR_DETAILS} listed; the message counts them all). Any problem creates nothing. \`api_key_in_query\`: an API key was sent in the query string.`,
    oneOfErrors(['InvalidParameterError', 'ApiKeyInQueryError']),
    rateLimitHeaders(false),
    {
      invalidParameter: errorBody('invalid_parameter', 'Invalid: data[0].email, data[2].productId. Nothing was created.', [
        { parameter: 'data[0].email', message: 'must be an email address (at most 254 characters)' },
        { parameter: 'data[2].productId', message: 'is not a product of your catalog' },
      ]),
      apiKeyInQuery: apiKeyInQueryExample,
    },
  );
}

export function invitationLimit(): ResponseObject {
  return response('`invitation_limit_reached`: the organization keeps at most 250,000 invitations; a request that would pass it creates none.', ref('InvitationLimitError'), rateLimitHeaders(false), {
    invitationLimit: errorBody('invitation_limit_reached', 'An organization may keep at most 250,000 invitations; these would pass it, so none was created.'),
  });
}

export function payloadTooLarge(): ResponseObject {
  return response('`payload_too_large`: the body is over 512 KiB (100 invitations with every field at its longest fit).', ref('PayloadTooLargeError'), {}, {
    payloadTooLarge: errorBody('payload_too_large', 'The body must be at most 524288 bytes.'),
  });
}

export function notFound(access: Access): ResponseObject {
  return response(
    access === 'api'
      ? 'No widget with this id in your organization (a widget of another organization is 404 too, never 403).'
      : 'No widget with this id.',
    ref('NotFoundError'),
    access === 'api' ? rateLimitHeaders(true) : {},
    { notFound: errorBody('not_found', 'Widget not found.') },
  );
}

/** 404 of an operation a product widget answers too: no such widget, or no such product in its catalog (CONTRACT §13). */
export function widgetOrProductNotFound(access: Access): ResponseObject {
  return response(
    `${access === 'api' ? 'No widget with this id in your organization (a widget of another organization is 404 too, never 403)' : 'No widget with this id'}, or (\`product_not_found\`) a product widget's product is not in the catalog.`,
    oneOfErrors(['NotFoundError', 'ProductNotFoundError']),
    access === 'api' ? rateLimitHeaders(true) : {},
    { notFound: errorBody('not_found', 'Widget not found.'), productNotFound: errorBody('product_not_found', 'No product "trail-shoe-42" in this organization\'s catalog.') },
  );
}

/** `writes`: a path that also takes POST (review invitations). */
export function methodNotAllowed(writes = false): ResponseObject {
  if (writes) {
    return response(
      'Any method other than GET, HEAD or POST on this path.',
      ref('MethodNotAllowedError'),
      { Allow: { description: 'The methods this path serves.', required: true, schema: { const: 'GET, HEAD, POST' }, example: 'GET, HEAD, POST' } },
      { methodNotAllowed: errorBody('method_not_allowed', 'This endpoint only answers GET, HEAD, POST.') },
    );
  }
  return response(
    'Any method other than GET or HEAD on this path. HEAD answers like GET without a body.',
    ref('MethodNotAllowedError'),
    {
      Allow: {
        description: 'The methods this path serves.',
        required: true,
        // GET among them, nothing that writes.
        schema: { type: 'string', pattern: '^(?=.*\\bGET\\b)(?:GET|HEAD|OPTIONS)(?:\\s*,\\s*(?:GET|HEAD|OPTIONS))*$' },
        example: 'GET, HEAD',
      },
    },
    { methodNotAllowed: errorBody('method_not_allowed', 'Method POST is not allowed here; use GET or HEAD.') },
  );
}

export function tooManyRequests(access: Access): ResponseObject {
  return response(
    access === 'api'
      ? 'The organization used up its requests for this minute (limits are shared by all its keys and all instances of the service), or this client address failed authentication too often.'
      : 'This client address sent too many requests this minute.',
    ref('RateLimitError'),
    {
      'Retry-After': {
        description: 'Seconds to wait before retrying.',
        required: true,
        schema: { type: 'integer', minimum: 0 },
        example: 17,
      },
      ...rateLimitHeaders(false),
    },
    { rateLimitExceeded: errorBody('rate_limit_exceeded', 'Rate limit of 60 requests per minute exceeded. Retry in 17 seconds.') },
  );
}

export function internalError(): ResponseObject {
  return response('An unexpected failure. The body never carries internals.', ref('InternalError'), {}, {
    internalError: errorBody('internal_error', 'Something went wrong on our side. Quote the X-Request-Id when reporting it.'),
  });
}

/** `retryAfter`: the answer of a request whose store is not answering carries Retry-After (CONTRACT §5). */
export function serviceUnavailable(description: string, retryAfter = false): ResponseObject {
  const headers: HeaderSet = retryAfter
    ? { 'Retry-After': { description: 'Seconds to wait before retrying (when the store is not answering).', required: false, schema: { type: 'integer', minimum: 0 }, example: 5 } }
    : {};
  return response(description, ref('ServiceUnavailableError'), headers, {
    serviceUnavailable: errorBody('service_unavailable', 'Not ready: redis does not answer.', [
      { component: 'redis', message: 'connect ECONNREFUSED' },
    ]),
  });
}
