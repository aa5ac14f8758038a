/**
 * The error envelopes, one schema per error code: `{error, message, details}`
 * with the code fixed, the message fixed where the contract fixes it, and
 * `details` empty unless the error explains itself in it.
 */
import { ref } from './refs.ts';
import type { JsonSchema } from './types.ts';

/** Most details any error lists; the message says how many problems there were. */
export const MAX_ERROR_DETAILS = 20;

const ParameterDetail: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['parameter', 'message'],
  properties: {
    parameter: { type: 'string', maxLength: 101, description: 'The query parameter, as sent (names over 100 characters are cut, ending with "…").' },
    message: { type: 'string', minLength: 1, description: 'What is wrong with it.' },
  },
};

const ComponentDetail: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['component', 'message'],
  properties: {
    component: { type: 'string', minLength: 1, description: 'The dependency that does not answer, e.g. `store` or `redis`.' },
    message: { type: 'string', minLength: 1 },
  },
};

const NO_DETAILS: JsonSchema = { type: 'array', maxItems: 0, description: 'Always empty for this error.' };

function errorSchema(code: string, description: string, message: string | null, details: JsonSchema = NO_DETAILS): JsonSchema {
  return {
    type: 'object',
    description,
    additionalProperties: false,
    required: ['error', 'message', 'details'],
    properties: {
      error: { const: code },
      // A message with a newline followed by "at" is a leaked stack trace.
      message: message === null ? { type: 'string', minLength: 1, maxLength: 500, not: { pattern: '\\n\\s*at ' } } : { const: message },
      details,
    },
  };
}

export const UNAUTHORIZED_MESSAGE = 'Invalid or missing API key.';
export const FORBIDDEN_MESSAGE = 'API access requires a Growth plan or higher.';
export const INVITATIONS_FORBIDDEN_MESSAGE = 'This API key may not send review invitations.';

export const ERROR_SCHEMAS = {
  InvalidParameterError: errorSchema('invalid_parameter', 'A query parameter (or a field of a request body) is unknown, repeated, empty or out of bounds: one detail per problem.', null, {
    type: 'array',
    minItems: 1,
    maxItems: MAX_ERROR_DETAILS,
    items: ref('ParameterDetail'),
  }),
  ApiKeyInQueryError: errorSchema(
    'api_key_in_query',
    'The query string holds an API key (`api_key`, `apiKey`, `key`, `token` or `access_token`, in any letter case). Send it in the Authorization header instead, and rotate the key: URLs end up in logs.',
    null,
    { type: 'array', minItems: 1, maxItems: MAX_ERROR_DETAILS, items: ref('ParameterDetail') },
  ),
  UnauthorizedError: errorSchema('unauthorized', 'The API key is missing, malformed, unknown, expired or revoked.', UNAUTHORIZED_MESSAGE),
  ForbiddenError: errorSchema('forbidden', "The key is valid but the organization's plan has no API access.", FORBIDDEN_MESSAGE),
  InvitationsForbiddenError: errorSchema('forbidden', 'The key lacks the permission `invitations:write` (keys are read-only unless created with it).', INVITATIONS_FORBIDDEN_MESSAGE),
  InvitationLimitError: errorSchema('invitation_limit_reached', "The new invitations would take the organization past its cap of stored invitations; none was created.", null),
  PayloadTooLargeError: errorSchema('payload_too_large', 'The request body is larger than the endpoint takes.', null),
  HttpsRequiredError: errorSchema('https_required', 'The request came over plain HTTP. Never redirected: resend it over HTTPS.', null),
  NotFoundError: errorSchema('not_found', 'No such path, or no such widget in your organization.', null),
  ProductNotFoundError: errorSchema('product_not_found', "A product widget's product is not in the organization's catalog.", null),
  MethodNotAllowedError: errorSchema('method_not_allowed', 'Only GET and HEAD are served; the `Allow` header lists them.', null),
  RateLimitError: errorSchema('rate_limit_exceeded', 'Too many requests in the current minute; retry after `Retry-After` seconds.', null),
  InternalError: errorSchema('internal_error', 'An unexpected failure. Never carries internals; quote the X-Request-Id when reporting it.', null),
  ServiceUnavailableError: errorSchema('service_unavailable', 'A dependency (the store, Redis) does not answer; details name it.', null, {
    type: 'array',
    items: ref('ComponentDetail'),
  }),
} as const satisfies Record<string, JsonSchema>;

/** The detail shapes errors refer to. */
export const ERROR_DETAIL_SCHEMAS = { ParameterDetail, ComponentDetail } as const satisfies Record<string, JsonSchema>;

export type ErrorSchemaName = keyof typeof ERROR_SCHEMAS;
