/**
 * The resource schemas of the public API and their envelopes, and the full
 * set of component schemas of the document (errors included). `document.ts`
 * assembles the document from them; `params.ts` and `response-validator.ts`
 * validate against the document, so a bound changed here changes the
 * contract, the request validation and the response checks together.
 */
import { SENTIMENT_LABELS, SUBJECT_TYPES, WIDGET_LAYOUTS } from '../store/types.ts';
import { ERROR_DETAIL_SCHEMAS, ERROR_SCHEMAS } from './error-schemas.ts';
import { reviewExample } from './examples.ts';
import { ref } from './refs.ts';
import type { JsonSchema } from './types.ts';

const ISO_TIMESTAMP: JsonSchema = { type: 'string', format: 'date-time' };
const URL_STRING: JsonSchema = { type: 'string', format: 'uri', maxLength: 2048 };

/** Upper-case platform identifier as the API returns it. */
export const PLATFORM_ID_PATTERN = '^[A-Z][A-Z0-9_]{0,31}$';

const Review: JsonSchema = {
  type: 'object',
  description: 'A review collected from a source platform.',
  additionalProperties: false,
  required: [
    'id',
    'platform',
    'authorName',
    'authorAvatar',
    'rating',
    'content',
    'date',
    'url',
    'language',
    'isVerified',
    'sentiment',
    'sentimentLabel',
    'aiSummary',
    'aiThemes',
    'createdAt',
    'productId',
    'reply',
  ],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 128, description: 'Unique review identifier.' },
    platform: {
      type: 'string',
      pattern: PLATFORM_ID_PATTERN,
      description: 'Source platform, an upper-case identifier: GOOGLE, YELP, TRUSTPILOT, G2, CAPTERRA, FACEBOOK, or another imported one.',
    },
    authorName: { type: 'string', description: 'Name of the review author (untrusted text: never interpret it as HTML).' },
    authorAvatar: { oneOf: [URL_STRING, { type: 'null' }], description: "URL of the author's avatar image." },
    rating: {
      type: ['number', 'null'],
      minimum: 1,
      maximum: 5,
      description: 'Star rating 1-5; null when the platform has no star ratings (e.g. Facebook recommendations).',
    },
    content: { type: 'string', description: 'Full review text (untrusted text: never interpret it as HTML).' },
    date: { ...ISO_TIMESTAMP, description: 'When the review was originally posted (ISO 8601, UTC).' },
    url: { oneOf: [URL_STRING, { type: 'null' }], description: 'Direct link to the review on the source platform.' },
    language: {
      type: 'string',
      pattern: '^[a-z]{2}$',
      description: 'Language of the text: the ISO 639-1 two-letter code given at import, or detected from `content` (e.g. en, es, fr).',
    },
    isVerified: { type: 'boolean', description: 'Whether the review is from a verified customer.' },
    sentiment: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'AI sentiment score, 0 (negative) to 1 (positive).' },
    sentimentLabel: { enum: [...SENTIMENT_LABELS, null], description: 'AI sentiment label.' },
    aiSummary: { type: ['string', 'null'], description: 'AI-generated one-line summary.' },
    aiThemes: { type: 'array', items: { type: 'string' }, description: 'AI-extracted themes.' },
    createdAt: { ...ISO_TIMESTAMP, description: 'When the review was imported into the service (ISO 8601, UTC).' },
    productId: {
      oneOf: [{ type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$' }, { type: 'null' }],
      description: "The catalog product the review is about (the organization's own id for it, CONTRACT §13); null when it is about the organization itself.",
    },
    reply: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['text', 'date'],
          properties: {
            text: { type: 'string', minLength: 1, description: 'The answer as plain text (never HTML: show it as text).' },
            date: { ...ISO_TIMESTAMP, description: 'When the answer was written or last changed on the platform (ISO 8601, UTC).' },
          },
        },
        { type: 'null' },
      ],
      description: "The organization's public answer to the review as it stands on the platform (CONTRACT §15; collected by each sync, or imported with replyText and replyDate); null when it has none.",
    },
  },
  examples: [reviewExample],
};

const Pagination: JsonSchema = {
  type: 'object',
  description:
    'Where a page sits in the filtered result. Read every result by repeating the request with `offset` increased by `limit` until `hasMore` is false.',
  additionalProperties: false,
  required: ['total', 'limit', 'offset', 'hasMore'],
  properties: {
    total: { type: 'integer', minimum: 0, description: 'Total reviews matching the filters.' },
    limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Reviews per page (the `limit` used).' },
    offset: { type: 'integer', minimum: 0, description: 'Offset of the first review of this page.' },
    hasMore: { type: 'boolean', description: 'Whether more results exist beyond this page (`offset + limit < total`).' },
  },
  examples: [{ total: 342, limit: 20, offset: 40, hasMore: true }],
};

const Platform: JsonSchema = {
  type: 'object',
  description: 'Reviews of one platform.',
  additionalProperties: false,
  required: ['platform', 'count', 'averageRating'],
  properties: {
    platform: { type: 'string', pattern: PLATFORM_ID_PATTERN, description: 'Platform identifier.' },
    count: { type: 'integer', minimum: 0, description: 'Reviews from this platform.' },
    averageRating: {
      type: ['number', 'null'],
      minimum: 1,
      maximum: 5,
      description: 'Average rating on this platform, rounded to 2 decimals; null when none of its reviews is rated.',
    },
  },
};

const RatingDistribution: JsonSchema = {
  type: 'object',
  description: 'Reviews with one star rating; `rating: null` counts the unrated ones.',
  additionalProperties: false,
  required: ['rating', 'count'],
  properties: {
    rating: { type: ['integer', 'null'], minimum: 1, maximum: 5, description: 'Star rating value (1-5), or null for unrated reviews.' },
    count: { type: 'integer', minimum: 0, description: 'Reviews with this rating.' },
  },
};

const Statistics: JsonSchema = {
  type: 'object',
  description: "Aggregate statistics over all of the organization's reviews.",
  additionalProperties: false,
  required: ['totalReviews', 'averageRating', 'averageSentiment', 'last30Days', 'last7Days', 'platforms', 'ratingDistribution'],
  properties: {
    totalReviews: { type: 'integer', minimum: 0, description: 'Total reviews across all platforms.' },
    averageRating: {
      type: ['number', 'null'],
      minimum: 1,
      maximum: 5,
      description: 'Average star rating over rated reviews, rounded to 2 decimals; null when nothing is rated.',
    },
    averageSentiment: {
      type: ['number', 'null'],
      minimum: 0,
      maximum: 1,
      description: 'Average sentiment over reviews that have one, rounded to 2 decimals; null when none has.',
    },
    last30Days: { type: 'integer', minimum: 0, description: 'Reviews whose `date` falls within the last 30 × 24 hours.' },
    last7Days: { type: 'integer', minimum: 0, description: 'Reviews whose `date` falls within the last 7 × 24 hours.' },
    platforms: { type: 'array', items: ref('Platform'), description: 'Breakdown by platform, by count descending.' },
    ratingDistribution: {
      type: 'array',
      items: ref('RatingDistribution'),
      minItems: 5,
      maxItems: 6,
      description: 'Ratings 5, 4, 3, 2, 1 in that order (counts may be 0), then `{"rating": null, "count": n}` when unrated reviews exist.',
    },
  },
  examples: [
    {
      totalReviews: 342,
      averageRating: 4.37,
      averageSentiment: 0.78,
      last30Days: 41,
      last7Days: 9,
      platforms: [
        { platform: 'GOOGLE', count: 120, averageRating: 4.52 },
        { platform: 'FACEBOOK', count: 30, averageRating: null },
      ],
      ratingDistribution: [
        { rating: 5, count: 180 },
        { rating: 4, count: 70 },
        { rating: 3, count: 30 },
        { rating: 2, count: 8 },
        { rating: 1, count: 24 },
        { rating: null, count: 30 },
      ],
    },
  ],
};

const ReviewList: JsonSchema = {
  type: 'object',
  description: 'List envelope: one page of reviews, newest first (`date` descending, then `id` descending).',
  additionalProperties: false,
  required: ['data', 'pagination'],
  properties: {
    data: { type: 'array', maxItems: 100, items: ref('Review') },
    pagination: ref('Pagination'),
  },
};

const StatisticsResponse: JsonSchema = {
  type: 'object',
  description: 'Single-resource envelope holding the statistics.',
  additionalProperties: false,
  required: ['data'],
  properties: { data: ref('Statistics') },
};

const Embed: JsonSchema = {
  type: 'object',
  description: 'What a site owner needs to embed a widget.',
  additionalProperties: false,
  required: ['widgetId', 'snippet', 'script'],
  properties: {
    widgetId: { type: 'string', minLength: 1, description: 'The widget identifier.' },
    snippet: {
      type: 'string',
      minLength: 1,
      description:
        'HTML to paste into a page: a container that reserves the height of the widget and an async script tag. Pasting it twice, or several widgets on one page, loads the bundle once.',
    },
    script: { type: 'string', minLength: 1, description: 'The same loader as plain JavaScript, for tag managers.' },
  },
};

const EmbedResponse: JsonSchema = {
  type: 'object',
  description: 'Single-resource envelope holding the embed code.',
  additionalProperties: false,
  required: ['data'],
  properties: { data: ref('Embed') },
};

const JsonLd: JsonSchema = {
  type: 'object',
  description:
    "A schema.org JSON-LD document about the widget's subject: `aggregateRating` (`ratingValue`, `reviewCount`, `bestRating` 5, `worstRating` 1) over every rated review of the platforms the widget shows, and `review` items (`author` Person, `datePublished`, `reviewBody`, `reviewRating`). Unrated reviews are left out of ratings.",
  required: ['@context', '@type', 'name'],
  properties: {
    '@context': { const: 'https://schema.org' },
    '@type': { enum: [...SUBJECT_TYPES] },
    name: { type: 'string', minLength: 1 },
    aggregateRating: {
      type: 'object',
      required: ['@type', 'ratingValue', 'reviewCount', 'bestRating', 'worstRating'],
      properties: {
        '@type': { const: 'AggregateRating' },
        ratingValue: { type: ['number', 'string'] },
        reviewCount: { type: ['integer', 'string'] },
        bestRating: { const: 5 },
        worstRating: { const: 1 },
      },
    },
    review: { type: 'array', items: { type: 'object', required: ['@type'], properties: { '@type': { const: 'Review' } } } },
  },
};

const SchemaResponse: JsonSchema = {
  type: 'object',
  description: 'Single-resource envelope holding the JSON-LD document.',
  additionalProperties: false,
  required: ['data'],
  properties: { data: ref('JsonLd') },
};

const PublicReview: JsonSchema = {
  type: 'object',
  description: 'A review as a widget shows it: no AI fields, links only when they are https.',
  additionalProperties: false,
  required: ['id', 'platform', 'authorName', 'authorAvatar', 'rating', 'content', 'date', 'url', 'isVerified', 'language'],
  properties: {
    id: { type: 'string', minLength: 1 },
    platform: { type: 'string', pattern: PLATFORM_ID_PATTERN },
    authorName: { type: 'string' },
    authorAvatar: { type: ['string', 'null'], pattern: '^https:', description: 'https: URLs only; anything else is null.' },
    rating: { type: ['number', 'null'], minimum: 1, maximum: 5 },
    content: { type: 'string' },
    date: ISO_TIMESTAMP,
    url: { type: ['string', 'null'], pattern: '^https:', description: 'https: URLs only; anything else is null.' },
    isVerified: { type: 'boolean' },
    language: { type: ['string', 'null'], description: 'ISO 639-1 code of the text (the widget sets it as the text\'s `lang`); null when unknown.' },
    reply: {
      type: 'object',
      additionalProperties: false,
      required: ['text', 'date'],
      properties: { text: { type: 'string', minLength: 1 }, date: ISO_TIMESTAMP },
      description: "The organization's answer, shown as text under the review (\"Response from {organization}\"). Absent when there is none or the widget does not show replies (showReplies false).",
    },
  },
};

const PublicWidgetData: JsonSchema = {
  type: 'object',
  description:
    'What the embedded widget displays, and nothing else: its layout, the name of its subject (which names its region), the display options the browser needs, a summary over the platforms it shows, the reviews its filters picked (the filters themselves stay on the server), the JSON-LD to inject (null when it injects none), the rows of a page and the height its container reserves.',
  additionalProperties: false,
  required: ['id', 'layout', 'subject', 'options', 'summary', 'reviews', 'jsonLd', 'rows', 'height'],
  properties: {
    id: { type: 'string', minLength: 1 },
    layout: { enum: [...WIDGET_LAYOUTS] },
    subject: { type: 'string' },
    organization: { type: 'string', description: 'The name the widget\'s replies are signed with ("Response from {organization}"): present when a review shown carries a reply.' },
    options: {
      type: 'object',
      additionalProperties: false,
      required: ['theme', 'accentColor', 'showDates', 'locale', 'reviewLanguages'],
      properties: {
        theme: { enum: ['light', 'dark', 'auto'] },
        accentColor: { type: 'string', pattern: '^#(?:[0-9a-fA-F]{3}){1,2}$' },
        showDates: { type: 'boolean' },
        locale: { type: ['string', 'null'] },
        reviewLanguages: { enum: ['all', 'page'] },
      },
    },
    summary: {
      type: 'object',
      required: ['averageRating', 'totalReviews', 'ratedReviews', 'platforms', 'hiddenReviews'],
      properties: {
        averageRating: { type: ['number', 'null'], minimum: 1, maximum: 5 },
        totalReviews: { type: 'integer', minimum: 0 },
        ratedReviews: { type: 'integer', minimum: 0 },
        hiddenReviews: {
          type: 'integer',
          minimum: 0,
          description: "Reviews of the widget's platforms a visitor does not see because of the owner: hidden by moderation, or under the widget's minimum stars (unrated reviews included), each counted once. Still counted in totalReviews and averageRating; the widget says so (\"12 hidden by the owner\").",
        },
        platforms: { type: 'array', items: ref('Platform') },
      },
    },
    reviews: { type: 'array', maxItems: 50, items: ref('PublicReview') },
    jsonLd: { oneOf: [ref('JsonLd'), { type: 'null' }] },
    rows: { type: 'integer', minimum: 0, maximum: 4 },
    height: { type: 'integer', minimum: 0 },
  },
};

const PublicWidgetResponse: JsonSchema = {
  type: 'object',
  description: 'Single-resource envelope holding the widget data.',
  additionalProperties: false,
  required: ['data'],
  properties: { data: ref('PublicWidgetData') },
};

const Health: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { const: 'ok' } },
};

const Ready: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'checks'],
  properties: {
    status: { const: 'ready' },
    checks: {
      type: 'object',
      description: 'State of each dependency: `store` always, `redis` when configured.',
      required: ['store'],
      additionalProperties: false,
      properties: { store: { const: 'ok' }, redis: { const: 'ok' } },
    },
  },
};

/** OpenAPI 3.1 documents are JSON Schema 2020-12; the served document is itself JSON. */
const OpenApi: JsonSchema = {
  type: 'object',
  description: 'This document.',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object' },
    paths: { type: 'object' },
  },
};

const INVITATION_STATE: JsonSchema = {
  type: 'string',
  enum: ['scheduled', 'sent', 'reminded', 'reviewed', 'failed', 'skipped', 'expired', 'cancelled', 'unsent'],
  description:
    '`scheduled` (to be mailed at `sendAt`), `sent`, `reminded`, `reviewed` (a review came through its link), `failed` (the mail relay refused it: `lastError`), `skipped` (`reason`), `expired` (30 days after sending without a review), `cancelled`, `unsent` (the service has no mail relay: send `link` with your own mailer).',
};
const NULLABLE_TIME: JsonSchema = { type: ['string', 'null'], format: 'date-time' };

const InvitationInput: JsonSchema = {
  type: 'object',
  description: 'One customer to invite. Only `email` is required.',
  additionalProperties: false,
  required: ['email'],
  properties: {
    email: { type: 'string', maxLength: 254, description: "The customer's email address: only ever shown to your organization." },
    name: { type: ['string', 'null'], maxLength: 100, description: "The customer's name, for the mail's greeting." },
    productId: { type: ['string', 'null'], pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'A product of your catalog to review; absent: a review of the organization.' },
    orderRef: { type: ['string', 'null'], maxLength: 100, description: 'Your order reference. The same `orderRef` and email again answers the invitation made the first time: nothing is sent twice.' },
    locale: { type: ['string', 'null'], maxLength: 35, description: "The mail's and page's language (`de`, `pt-BR` read as `pt`); absent: the organization's." },
    sendAt: { type: ['string', 'null'], format: 'date-time', description: 'When to mail it (with a time zone; at most 365 days ahead; a past time is now). Absent: 7 days after creation.' },
  },
  examples: [{ email: 'ana@example.com', name: 'Ana', productId: 'trail-shoe-42', orderRef: 'A-10023', locale: 'en' }],
};

const InvitationCreateRequest: JsonSchema = {
  description: 'One invitation, or `{"data": [...]}` of 1 to 100.',
  oneOf: [
    ref('InvitationInput'),
    { type: 'object', additionalProperties: false, required: ['data'], properties: { data: { type: 'array', minItems: 1, maxItems: 100, items: ref('InvitationInput') } } },
  ],
};

const InvitationCreated: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'email', 'state', 'sendAt', 'link'],
  properties: {
    id: { type: 'string', pattern: '^inv_[0-9A-Za-z]{20}$' },
    email: { type: 'string' },
    state: INVITATION_STATE,
    sendAt: NULLABLE_TIME,
    link: { type: ['string', 'null'], format: 'uri', description: 'The personal review link (`{PUBLIC_URL}/r/i/{token}`); null when `skipped`. Keep it private: it lets its holder review as a verified buyer.' },
    reason: { type: 'string', enum: ['recently_invited', 'unsubscribed'], description: 'Only when `skipped`.' },
  },
};

const InvitationCreatedResponse: JsonSchema = {
  type: 'object',
  description: 'One entry per invitation sent, in order; an `orderRef` and email invited before answer the stored invitation.',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { type: 'array', minItems: 1, maxItems: 100, items: ref('InvitationCreated') } },
};

const Invitation: JsonSchema = {
  type: 'object',
  description: 'A review invitation.',
  additionalProperties: false,
  required: ['id', 'email', 'name', 'productId', 'orderRef', 'locale', 'state', 'reason', 'lastError', 'createdAt', 'sendAt', 'sentAt', 'remindedAt', 'reviewedAt', 'link'],
  properties: {
    id: { type: 'string', pattern: '^inv_[0-9A-Za-z]{20}$' },
    email: { type: 'string' },
    name: { type: ['string', 'null'] },
    productId: { type: ['string', 'null'] },
    orderRef: { type: ['string', 'null'] },
    locale: { type: ['string', 'null'] },
    state: INVITATION_STATE,
    reason: { type: ['string', 'null'], enum: ['recently_invited', 'unsubscribed', null], description: 'Why it was `skipped`: the address was invited in the last 30 days, or it unsubscribed (which wins).' },
    lastError: { type: ['string', 'null'], description: "`failed`: the mail relay's answer." },
    createdAt: ISO_TIMESTAMP,
    sendAt: NULLABLE_TIME,
    sentAt: NULLABLE_TIME,
    remindedAt: NULLABLE_TIME,
    reviewedAt: NULLABLE_TIME,
    link: { type: ['string', 'null'], format: 'uri' },
  },
};

const InvitationList: JsonSchema = {
  type: 'object',
  description: 'List envelope: one page of invitations, newest first.',
  additionalProperties: false,
  required: ['data', 'pagination'],
  properties: { data: { type: 'array', maxItems: 100, items: ref('Invitation') }, pagination: ref('Pagination') },
};

export const COMPONENT_SCHEMAS = {
  Review,
  Pagination,
  Platform,
  RatingDistribution,
  Statistics,
  ReviewList,
  StatisticsResponse,
  Embed,
  EmbedResponse,
  JsonLd,
  SchemaResponse,
  PublicReview,
  PublicWidgetData,
  PublicWidgetResponse,
  Health,
  Ready,
  OpenApi,
  InvitationInput,
  InvitationCreateRequest,
  InvitationCreated,
  InvitationCreatedResponse,
  Invitation,
  InvitationList,
  ...ERROR_DETAIL_SCHEMAS,
  ...ERROR_SCHEMAS,
} as const satisfies Record<string, JsonSchema>;

export type SchemaName = keyof typeof COMPONENT_SCHEMAS;
