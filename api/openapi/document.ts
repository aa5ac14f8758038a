/**
 * The OpenAPI 3.1 document of the public API, served at GET /api/v1/openapi.json.
 * It is built from the constants in `schemas.ts` and `responses.ts`, and it is
 * the single source the request parameters and the responses are checked
 * against.
 */
import { MAX_ERROR_DETAILS } from './error-schemas.ts';
import { publicWidgetExample, reviewExample } from './examples.ts';
import { HTML_LANG_PARAMETER, LIST_INVITATIONS_PARAMETERS, LIST_REVIEWS_PARAMETERS, PRODUCT_ID_PARAMETER, WIDGET_ID_PARAMETER, WIDGET_PRODUCT_PARAMETER } from './parameters.ts';
import { COMPONENT_SCHEMAS } from './schemas.ts';
import { WEBHOOK_SCHEMAS, webhooksObject } from './webhooks.ts';
import {
  JSON_CONTENT_TYPE,
  accepted,
  badBody,
  badRequest,
  forbidden,
  invitationLimit,
  invitationsForbidden,
  payloadTooLarge,
  internalError,
  methodNotAllowed,
  notFound,
  notModified,
  ok,
  okHtml,
  okHeaders,
  preflight,
  publicWidgetHeaders,
  serviceUnavailable,
  tooManyRequests,
  unauthorized,
  widgetOrProductNotFound,
} from './responses.ts';
import type { OpenApiDocument, OperationObject, PathItemObject, ResponseObject } from './types.ts';

export const DEFAULT_SERVER_URL = 'https://localhost:8443';
/** Prefix of the keyed API; the other paths hang off the origin. */
export const API_BASE_PATH = '/api/v1';

export interface DocumentOptions {
  /** PUBLIC_URL, the origin clients reach the service at. */
  serverUrl?: string;
}

const KEYLESS: OperationObject['security'] = [];

const STORE_DOWN = 'The store does not answer; retry later.';

/** Errors every keyed operation can answer with, in the check order of the description. */
function apiErrors(extra: Record<string, ResponseObject> = {}): Record<string, ResponseObject> {
  return {
    '400': badRequest('api'),
    '401': unauthorized(),
    '403': forbidden('api'),
    ...extra,
    '405': methodNotAllowed(),
    '429': tooManyRequests('api'),
    '500': internalError(),
    '503': serviceUnavailable(STORE_DOWN, true),
  };
}

const listReviews: OperationObject = {
  operationId: 'listReviews',
  summary: 'List reviews',
  description:
    "One page of the organization's reviews, newest first (`date` descending, then `id` descending, stable across pages), optionally filtered. Every filter narrows the result; `pagination.total` counts all matches.",
  tags: ['Reviews'],
  parameters: LIST_REVIEWS_PARAMETERS,
  responses: {
    '200': ok('One page of reviews.', 'ReviewList', okHeaders('api'), {
      data: [reviewExample],
      pagination: { total: 342, limit: 1, offset: 0, hasMore: true },
    }),
    ...apiErrors(),
  },
};

const getStats: OperationObject = {
  operationId: 'getStats',
  summary: 'Review statistics',
  description: "Aggregate statistics over all of the organization's reviews, or over one catalog product's (`productId`).",
  tags: ['Reviews'],
  parameters: [PRODUCT_ID_PARAMETER],
  responses: { '200': ok('The statistics.', 'StatisticsResponse', okHeaders('api')), ...apiErrors() },
};

const getEmbed: OperationObject = {
  operationId: 'getEmbed',
  summary: 'Widget embed code',
  description:
    'The HTML snippet (and the same loader as plain JavaScript) that embeds the widget in a page. The snippet carries no API key: the widget reads its data from the public widget endpoint. Takes no query parameter.',
  tags: ['Widgets'],
  parameters: [WIDGET_ID_PARAMETER],
  responses: { '200': ok('The embed code.', 'EmbedResponse', okHeaders('api')), ...apiErrors({ '404': notFound('api') }) },
};

const getSchema: OperationObject = {
  operationId: 'getSchema',
  summary: 'Widget JSON-LD',
  description:
    "schema.org JSON-LD about the widget's subject, for SEO rich snippets: put it in a script element of type `application/ld+json` (the widget does it unless told not to). Its aggregateRating and review items are built from the reviews the organization collected itself (platform `DIRECT`) unless the widget's `jsonLdSources` is `all`. A product widget's document is about that Product (name, sku, url, image, gtin, brand) and that product's reviews only; `productId` names the product of a widget with `productFrom: \"page\"`, as for the public data.",
  tags: ['Widgets'],
  parameters: [WIDGET_ID_PARAMETER, WIDGET_PRODUCT_PARAMETER],
  responses: { '200': ok('The JSON-LD document.', 'SchemaResponse', okHeaders('api')), ...apiErrors({ '404': widgetOrProductNotFound('api') }) },
};

const INVITATIONS_PERMISSION =
  'Needs a key with the permission `invitations:write` (`keys create --permissions reviews:read,invitations:write`, or "May send review invitations" in the dashboard\'s Create API Key); other keys get 403 `forbidden` with the message "This API key may not send review invitations.". Counted in the organization\'s rate limit like every request.';

const invitationExample = {
  id: 'inv_4fK9xQ2mLp7RtV8nB4cZ',
  email: 'ana@example.com',
  name: 'Ana',
  productId: 'trail-shoe-42',
  orderRef: 'A-10023',
  locale: 'en',
  state: 'sent',
  reason: null,
  lastError: null,
  createdAt: '2026-11-20T09:00:00.000Z',
  sendAt: '2026-11-27T09:00:00.000Z',
  sentAt: '2026-11-27T09:00:04.000Z',
  remindedAt: null,
  reviewedAt: null,
  link: 'https://reviews.example.com/r/i/inv_4fK9xQ2mLp7RtV8nB4cZ.q3Jw8Kc2n0yT5u7ZkF1mB6xVd9sR4hLpA2eG0iNoQ_w',
};

const createInvitations: OperationObject = {
  operationId: 'createInvitations',
  summary: 'Invite customers to review',
  description: `Asks customers for a review after a purchase: one invitation, or \`{"data": [...]}\` of up to 100. ${INVITATIONS_PERMISSION}

Every item is checked before anything is stored: any invalid item is a 400 \`invalid_parameter\` (one detail per field) and creates nothing. The rules, decided when the invitation is created: an address gets at most one invitation per organization in 30 days (a later one is \`skipped\` with \`reason: recently_invited\`); an address that unsubscribed is \`skipped\` with \`reason: unsubscribed\` (which wins). The same \`orderRef\` and email again answers the invitation made the first time, so retrying a request never sends twice. With a mail relay configured the invitation is \`scheduled\` and mailed at \`sendAt\`; without one it is \`unsent\` and \`link\` is for your own mailer. Nobody is chosen by rating or opinion: every invitee gets the same mail and page.`,
  tags: ['Invitations'],
  requestBody: {
    description: 'One invitation, or `{"data": [...]}` of 1 to 100 (JSON, at most 512 KiB: 100 invitations with every field at its longest fit).',
    required: true,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/InvitationCreateRequest' }, examples: { one: { value: { email: 'ana@example.com', name: 'Ana', orderRef: 'A-10023' } }, batch: { value: { data: [{ email: 'ana@example.com', productId: 'trail-shoe-42', orderRef: 'A-10023' }, { email: 'ben@example.com', locale: 'de' }] } } } } },
  },
  responses: {
    '202': accepted('The invitations, in the order sent: each `scheduled`, `unsent` or `skipped` (or, for a repeated `orderRef` and email, as it is now).', 'InvitationCreatedResponse', {
      data: [{ id: 'inv_4fK9xQ2mLp7RtV8nB4cZ', email: 'ana@example.com', state: 'scheduled', sendAt: '2026-11-27T09:00:00.000Z', link: invitationExample.link }],
    }),
    '400': badBody(),
    '401': unauthorized(),
    '403': invitationsForbidden(),
    '409': invitationLimit(),
    '413': payloadTooLarge(),
    '429': tooManyRequests('api'),
    '500': internalError(),
    '503': serviceUnavailable(STORE_DOWN, true),
  },
};

const listInvitations: OperationObject = {
  operationId: 'listInvitations',
  summary: 'List invitations',
  description: `One page of the organization's review invitations, newest first, optionally in one state; each with its link (null when \`skipped\`). ${INVITATIONS_PERMISSION}`,
  tags: ['Invitations'],
  parameters: LIST_INVITATIONS_PARAMETERS,
  responses: {
    '200': ok('One page of invitations.', 'InvitationList', okHeaders('api'), { data: [invitationExample], pagination: { total: 1, limit: 20, offset: 0, hasMore: false } }),
    '400': badRequest('api'),
    '401': unauthorized(),
    '403': invitationsForbidden(),
    '405': methodNotAllowed(true),
    '429': tooManyRequests('api'),
    '500': internalError(),
    '503': serviceUnavailable(STORE_DOWN, true),
  },
};

const getOpenApi: OperationObject = {
  operationId: 'getOpenApi',
  summary: 'This document',
  description: 'The OpenAPI 3.1 document of the API. No key needed. Takes no query parameter.',
  tags: ['Service'],
  security: KEYLESS,
  responses: {
    '200': ok('The OpenAPI document.', 'OpenApi'),
    '400': badRequest('keyless'),
    '403': forbidden('keyless'),
    '405': methodNotAllowed(),
    '500': internalError(),
  },
};

const getApiReference: OperationObject = {
  operationId: 'getApiReference',
  summary: 'This document in the browser',
  description:
    'An HTML page that renders this document (Redoc), with everything it loads served from this origin as content-hashed files, under a Content-Security-Policy that allows no other origin. No key needed. Takes no query parameter.',
  tags: ['Service'],
  security: KEYLESS,
  responses: {
    '200': okHtml('The reference page (`text/html; charset=utf-8`).', {}, '<!doctype html><html lang="en">…<title>Review Proof API reference</title>…</html>'),
    '400': badRequest('keyless'),
    '403': forbidden('keyless'),
    '405': methodNotAllowed(),
    '500': internalError(),
  },
};

const getPublicWidgetHtml: OperationObject = {
  operationId: 'getPublicWidgetHtml',
  summary: 'Server-rendered widget HTML',
  description:
    'The widget rendered on the server by the same components as the JavaScript widget: its container with a declarative shadow root (`<template shadowrootmode="open">`) holding its CSS, its data (for the loader to hydrate in place) and its markup, followed by its JSON-LD when the widget injects it. A fragment to include server-side, for crawlers and visitors without JavaScript. Key-less, cacheable (ETag and If-None-Match), rate limited per client address like the public data. A product widget takes `productId` as the public data does.',
  tags: ['Public'],
  security: KEYLESS,
  parameters: [WIDGET_ID_PARAMETER, HTML_LANG_PARAMETER, WIDGET_PRODUCT_PARAMETER],
  responses: {
    '200': okHtml(
      'The HTML fragment (`text/html; charset=utf-8`).',
      publicWidgetHeaders(),
      '<div class="rv-widget" data-rv-widget="wdg_3fK9xQ2mLp7RtV8nB4cZ" data-rv-height="314" style="min-height:314px"><template shadowrootmode="open"><style>…</style><script type="application/json" data-rv-data>…</script><section class="rv carousel light" aria-label="Reviews of Acme Trail Shoe" lang="en" dir="ltr">…</section></template></div>',
    ),
    '304': notModified(),
    '400': badRequest('keyless'),
    '403': forbidden('keyless'),
    '404': widgetOrProductNotFound('keyless'),
    '405': methodNotAllowed(),
    '429': tooManyRequests('keyless'),
    '500': internalError(),
    '503': serviceUnavailable(STORE_DOWN),
  },
};

const getPublicWidget: OperationObject = {
  operationId: 'getPublicWidget',
  summary: 'Public widget data',
  description:
    'What an embedded widget displays, read by the widget bundle from the browser. Key-less, read-only, CORS-enabled, cacheable (ETag and If-None-Match, per product for a product widget), rate limited per client address. A product widget with `productFrom: \"page\"` takes the page\'s product as `productId` (the container\'s `data-product-id`); no other query parameter.',
  tags: ['Public'],
  security: KEYLESS,
  parameters: [WIDGET_ID_PARAMETER, WIDGET_PRODUCT_PARAMETER],
  responses: {
    '200': ok('The widget data.', 'PublicWidgetResponse', publicWidgetHeaders(), { data: publicWidgetExample }),
    '304': notModified(),
    '400': badRequest('keyless'),
    '403': forbidden('keyless'),
    '404': widgetOrProductNotFound('keyless'),
    '405': methodNotAllowed(),
    '429': tooManyRequests('keyless'),
    '500': internalError(),
    '503': serviceUnavailable(STORE_DOWN, true),
  },
};

const preflightPublicWidget: OperationObject = {
  operationId: 'preflightPublicWidget',
  summary: 'CORS preflight',
  description: 'Browsers ask before some cross-origin reads; any origin may read the widget data.',
  tags: ['Public'],
  security: KEYLESS,
  parameters: [WIDGET_ID_PARAMETER],
  responses: {
    '204': preflight(),
    '400': badRequest('keyless', true),
    '403': forbidden('keyless'),
    '500': internalError(),
  },
};

const getHealth: OperationObject = {
  operationId: 'getHealth',
  summary: 'Liveness',
  description: 'Answers 200 while the process serves. No key needed; the query string is ignored (except for an API key in it).',
  tags: ['Service'],
  security: KEYLESS,
  responses: {
    '200': ok('The process serves.', 'Health', {}, { status: 'ok' }),
    '400': badRequest('keyless', true),
    '403': forbidden('keyless'),
    '405': methodNotAllowed(),
    '500': internalError(),
  },
};

const getReady: OperationObject = {
  operationId: 'getReady',
  summary: 'Readiness',
  description:
    'Answers 200 when the store and (if configured) Redis answer, 503 naming what is down. No key needed; the query string is ignored (except for an API key in it).',
  tags: ['Service'],
  security: KEYLESS,
  responses: {
    '200': ok('Ready to serve.', 'Ready', {}, { status: 'ready', checks: { store: 'ok', redis: 'ok' } }),
    '400': badRequest('keyless', true),
    '403': forbidden('keyless'),
    '405': methodNotAllowed(),
    '500': internalError(),
    '503': serviceUnavailable('Not ready: the details name each dependency that does not answer.'),
  },
};

const DESCRIPTION = `Read-only JSON API over an organization's collected reviews, their statistics, and embeddable review widgets with schema.org JSON-LD.

## Authentication
Send \`Authorization: Bearer <API key>\` on every request to \`/api/v1\` (except this document). Keys are created by an organization owner or admin and shown once. A key in the query string (\`api_key\`, \`apiKey\`, \`key\`, \`token\`, \`access_token\`, any letter case) is refused with 400 \`api_key_in_query\`, whatever else the request holds. API access needs the Growth plan (60 requests per minute) or Agency (200 per minute); other plans get 403 \`forbidden\`.

## Checks, in order
1. HTTPS: plain HTTP gets 403 \`https_required\`, never a redirect.
2. No API key in the query string (400 \`api_key_in_query\`).
3. Authentication (401 \`unauthorized\`, with \`WWW-Authenticate: Bearer\`). Repeated failures from one client address are rate limited (429).
4. Plan (403 \`forbidden\`).
5. Rate limit, per organization and minute, shared by all its keys and all instances (429 \`rate_limit_exceeded\` with \`Retry-After\`).
6. Query parameters (400 \`invalid_parameter\`).

Every response after step 5 carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (epoch seconds).

## Requests
Only GET (and HEAD, which answers like GET without a body) is served, plus POST on \`/invitations\` (a JSON body) and CORS preflights (OPTIONS) on the public widget endpoint; other methods get 405 \`method_not_allowed\` with \`Allow\`. An unknown path is 404 \`not_found\`. Query strings are strict: an unknown, repeated or empty parameter is an error, and so is a parameter on an endpoint that takes none. Each problem is one entry of \`details\` (at most ${MAX_ERROR_DETAILS}).

## Responses
Every response, errors included, is JSON with \`Content-Type: ${JSON_CONTENT_TYPE}\` and carries \`X-Request-Id\`. Errors are \`{"error": code, "message": text, "details": [...]}\`; the codes are listed with each status. Lists are \`{"data": [...], "pagination": {...}}\`, single resources \`{"data": {...}}\`. Timestamps are ISO 8601 in UTC.

## Versioning
The version is the \`/v1\` path segment. Within v1, fields and endpoints may be added, never removed or changed in meaning.`;

function pathItem(get: OperationObject, servers?: PathItemObject['servers'], options?: OperationObject): PathItemObject {
  return { ...(servers && { servers }), get, ...(options && { options }) };
}

export function openApiDocument(opts: DocumentOptions = {}): OpenApiDocument {
  // Accept PUBLIC_URL itself or the API base under it.
  const origin = (opts.serverUrl ?? DEFAULT_SERVER_URL).replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  const atOrigin = [{ url: origin, description: 'The service origin (outside the versioned API).' }];
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Review Proof API',
      version: '1.0.0',
      summary: 'Reviews, review statistics and embeddable social-proof widgets.',
      description: DESCRIPTION,
    },
    servers: [{ url: `${origin}${API_BASE_PATH}`, description: 'Version 1 of the API.' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Reviews', description: "The organization's reviews and their statistics." },
      { name: 'Widgets', description: 'Embed code and structured data of review widgets.' },
      { name: 'Invitations', description: 'Ask customers for a review after a purchase (keys with the permission `invitations:write`).' },
      { name: 'Public', description: 'Key-less endpoints read by embedded widgets in browsers.' },
      { name: 'Service', description: 'This document and the health of the service.' },
      { name: 'Webhooks', description: 'Events the service POSTs to the HTTPS endpoints an organization registered, signed per Standard Webhooks (standardwebhooks.com).' },
    ],
    paths: {
      '/reviews': pathItem(listReviews),
      '/reviews/stats': pathItem(getStats),
      '/invitations': { get: listInvitations, post: createInvitations },
      '/widgets/{id}/embed': pathItem(getEmbed),
      '/widgets/{id}/schema': pathItem(getSchema),
      '/openapi.json': pathItem(getOpenApi),
      '/docs': pathItem(getApiReference),
      '/public/v1/widgets/{id}': pathItem(getPublicWidget, atOrigin, preflightPublicWidget),
      '/public/v1/widgets/{id}/html': pathItem(getPublicWidgetHtml, atOrigin),
      '/healthz': pathItem(getHealth, atOrigin),
      '/readyz': pathItem(getReady, atOrigin),
    },
    webhooks: webhooksObject(),
    components: {
      schemas: { ...COMPONENT_SCHEMAS, ...WEBHOOK_SCHEMAS },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key of the organization, created in its dashboard: `Authorization: Bearer <key>`.',
        },
      },
    },
  };
}
