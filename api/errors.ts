/**
 * The one errors module: small factories, each with a stable `error` code,
 * status and message. The error handler (middleware/error-handler.ts) renders
 * every ApiError as the JSON envelope; anything else becomes a plain 500.
 */

export interface ParameterDetail {
  parameter: string;
  message: string;
}

/** A part of the service that is down (readiness). */
export interface ComponentDetail {
  component: string;
  message: string;
}

export type ErrorDetail = ParameterDetail | ComponentDetail;

export class ApiError extends Error {
  readonly expose = true;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toJSON(): { error: string; message: string; details: ErrorDetail[] } {
    return { error: this.code, message: this.message, details: this.details };
  }
}

export const httpsRequired = (): ApiError =>
  new ApiError(403, 'https_required', 'This API is served over HTTPS only. Repeat the request with https://.');

export const apiKeyInQuery = (parameter: string): ApiError =>
  new ApiError(
    400,
    'api_key_in_query',
    'API keys must be sent in the Authorization header (Authorization: Bearer <API_KEY>), never in the query string. Rotate this key: URLs end up in logs.',
    [{ parameter, message: 'API keys are not accepted as query parameters.' }],
  );

export const unauthorized = (): ApiError =>
  new ApiError(401, 'unauthorized', 'Invalid or missing API key.', [], { 'WWW-Authenticate': 'Bearer' });

export const forbiddenPlan = (): ApiError => new ApiError(403, 'forbidden', 'API access requires a Growth plan or higher.');

export const rateLimited = (retryAfterSeconds: number, message = 'Rate limit exceeded.'): ApiError =>
  new ApiError(429, 'rate_limit_exceeded', `${message} Retry after ${retryAfterSeconds} seconds.`, [], {
    'Retry-After': String(retryAfterSeconds),
  });

export const invalidParameters = (details: ParameterDetail[], message?: string): ApiError =>
  new ApiError(
    400,
    'invalid_parameter',
    message ?? (details.length === 1 ? `Invalid query parameter: ${details[0]!.parameter}.` : `${details.length} query parameters are invalid.`),
    details,
  );

export const notFound = (what = 'The requested resource'): ApiError => new ApiError(404, 'not_found', `${what} was not found.`);

export const methodNotAllowed = (allow: string[]): ApiError =>
  new ApiError(405, 'method_not_allowed', `This endpoint only answers ${allow.join(', ')}.`, [], { Allow: allow.join(', ') });

export const badRequest = (message: string, details: ErrorDetail[] = []): ApiError =>
  new ApiError(400, 'bad_request', message, details);

export const payloadTooLarge = (message: string): ApiError => new ApiError(413, 'payload_too_large', message);

export const serviceUnavailable = (message: string, details: ComponentDetail[] = []): ApiError =>
  new ApiError(503, 'service_unavailable', message, details);

/** A store that is not answering: retry shortly (CONTRACT §5). */
export const storeUnavailable = (store: string, retryAfterSeconds = 5): ApiError =>
  new ApiError(
    503,
    'service_unavailable',
    `The ${store} store is not answering. Retry after ${retryAfterSeconds} seconds.`,
    [{ component: 'store', message: 'not answering' }],
    { 'Retry-After': String(retryAfterSeconds) },
  );

export const internalError = (): ApiError =>
  new ApiError(500, 'internal_error', 'Something went wrong on our side. The request id identifies it in our logs.');
