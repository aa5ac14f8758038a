/**
 * The parameters of the public API. `params.ts` validates query strings
 * against these objects as they appear in the document: names, types, bounds
 * and defaults live here only.
 */
import type { ParameterObject } from './types.ts';

/**
 * `since`: an ISO 8601 date, or a date-time with an offset as people write
 * it: `T` (or a space), minutes with or without seconds and a fraction,
 * `Z`, `±HH:MM`, `±HHMM` or `±HH` (api/reviews/iso-date.ts reads it, the
 * import's dates likewise). A date-time needs its offset here: the API cannot
 * say afterwards that it read a clock time as UTC. The calendar (no
 * 2024-02-30, hours to 23) is checked when the value is read (params.ts).
 */
export const SINCE_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}(?:[Tt ][0-2]\\d:[0-5]\\d(?::[0-5]\\d(?:[.,]\\d{1,9})?)?(?:[Zz]|[+-][0-2]\\d(?::?[0-5]\\d)?))?$';

/** Query parameters of GET /reviews. `title` is how an error message names what is expected. */
/** A catalog product (CONTRACT §13): the reviews about it only. */
export const PRODUCT_ID_PARAMETER = {
  name: 'productId',
  in: 'query',
  required: false,
  description:
    "Only reviews about this catalog product: its id (the organization's SKU or handle), matched exactly and case-sensitively. A product no review names, or an id not in the catalog, gives an empty page (zero statistics), not an error.",
  schema: { type: 'string', title: 'a product id: 1-100 characters of A-Z a-z 0-9 . _ -', pattern: '^[A-Za-z0-9._-]{1,100}$' },
  example: 'trail-shoe-42',
} as const satisfies ParameterObject;

export const LIST_INVITATIONS_PARAMETERS = [
  {
    name: 'state',
    in: 'query',
    required: false,
    description: 'Only invitations in this state.',
    schema: { type: 'string', title: 'one of scheduled, sent, reminded, reviewed, failed, skipped, expired, cancelled, unsent', enum: ['scheduled', 'sent', 'reminded', 'reviewed', 'failed', 'skipped', 'expired', 'cancelled', 'unsent'] },
    example: 'sent',
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Invitations per page. An integer written in plain digits.',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    example: 20,
  },
  {
    name: 'offset',
    in: 'query',
    required: false,
    description: 'How many matching invitations to skip. An integer in plain digits; at most 10,000,000.',
    schema: { type: 'integer', minimum: 0, maximum: 10_000_000, default: 0 },
    example: 0,
  },
] as const satisfies readonly ParameterObject[];

export const LIST_REVIEWS_PARAMETERS = [
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Reviews per page. An integer written in plain digits (`10`; not `10.0`, `1e1` or `+10`).',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    example: 20,
  },
  {
    name: 'offset',
    in: 'query',
    required: false,
    description: 'How many matching reviews to skip. An integer in plain digits; at most 10,000,000.',
    schema: { type: 'integer', minimum: 0, maximum: 10_000_000, default: 0 },
    example: 40,
  },
  {
    name: 'platform',
    in: 'query',
    required: false,
    description:
      'Only reviews of this platform, matched case-insensitively (`google` = `GOOGLE`). An identifier that names no platform matches nothing (an empty page, not an error).',
    schema: {
      type: 'string',
      title: 'a platform identifier: a letter, then at most 31 letters, digits or underscores',
      pattern: '^[A-Za-z][A-Za-z0-9_]{0,31}$',
    },
    example: 'GOOGLE',
  },
  {
    name: 'minRating',
    in: 'query',
    required: false,
    description: 'Only reviews rated at least this (1-5, decimals allowed). Unrated reviews never match. Must not exceed `maxRating`.',
    schema: { type: 'number', minimum: 1, maximum: 5 },
    example: 4,
  },
  {
    name: 'maxRating',
    in: 'query',
    required: false,
    description: 'Only reviews rated at most this (1-5, decimals allowed). Unrated reviews never match.',
    schema: { type: 'number', minimum: 1, maximum: 5 },
    example: 5,
  },
  {
    name: 'since',
    in: 'query',
    required: false,
    description:
      'Only reviews posted strictly after this instant: an ISO 8601 date (`2026-01-31`, meaning 00:00 UTC of that day) or date-time with an offset, seconds optional (`2026-01-31T09:30Z`, `2026-01-31T09:30:00Z`, `2026-01-31T09:30%2B01:00`, `2026-01-31T09:30:00.5-0500`; `T` may be a space, written `%20`; an unencoded `+` that arrives as a space before the offset is read as `+`). A date-time without an offset, Unix timestamps and words are rejected.',
    schema: {
      type: 'string',
      title: 'an ISO 8601 date (YYYY-MM-DD) or date-time with an offset (YYYY-MM-DDTHH:MMZ, seconds optional, or an offset such as +01:00)',
      maxLength: 40,
      pattern: SINCE_PATTERN,
    },
    example: '2026-01-31',
  },
  {
    name: 'language',
    in: 'query',
    required: false,
    description:
      'Only reviews in this language: a two-letter ISO 639-1 code, matched case-insensitively (`DE` = `de`). A code no review has matches nothing (an empty page, not an error). A review\'s `language` is the one its import gave, else the one detected from its text, else (text too short to tell) the organization\'s default language.',
    schema: {
      type: 'string',
      title: 'a two-letter ISO 639-1 language code such as en or de',
      pattern: '^[A-Za-z]{2}$',
    },
    example: 'de',
  },
  PRODUCT_ID_PARAMETER,
] as const satisfies readonly ParameterObject[];

export const WIDGET_ID_PARAMETER = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Widget identifier. A widget of another organization, or an id that names no widget (whatever its shape), is 404.',
  schema: { type: 'string', pattern: '^wdg_[0-9A-Za-z]{20}$' },
  example: 'wdg_3fK9xQ2mLp7RtV8nB4cZ',
} as const satisfies ParameterObject;

/** The including page's language, for the server-rendered widget. */
export const HTML_LANG_PARAMETER = {
  name: 'lang',
  in: 'query',
  required: false,
  description: "The language of the page that includes the fragment (the server cannot read its `<html lang>`), used when the widget's locale is auto. Without it: English.",
  schema: { type: 'string', title: 'a BCP 47 language tag such as fr or de-CH', pattern: '^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,4}$', maxLength: 35 },
  example: 'fr',
} as const satisfies ParameterObject;

/** A product widget's product (CONTRACT §13): for a widget with `productFrom: "page"`, the container's `data-product-id`. */
export const WIDGET_PRODUCT_PARAMETER = {
  name: 'productId',
  in: 'query',
  required: false,
  description:
    'For a product widget: the catalog id of the product shown (case-sensitive). Required by a widget with `productFrom: "page"` (the loader sends the container\'s `data-product-id`); a widget with its own `productId` takes only that id or none; any other widget takes none (400). An id not in the catalog is 404 `product_not_found`.',
  schema: PRODUCT_ID_PARAMETER.schema,
  example: 'trail-shoe-42',
} as const satisfies ParameterObject;

/** Names a client may put an API key under in a query string; refused before authentication. */
export const API_KEY_QUERY_NAMES = ['api_key', 'apiKey', 'key', 'token', 'access_token'] as const;
