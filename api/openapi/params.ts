/**
 * Query-string validation, read from the OpenAPI document: the parameter
 * objects of an operation say which names exist, their types, bounds and
 * defaults. Each raw string is turned into its typed value by rules kept
 * deliberately strict here (plain digits only: no `1e1`, `+10`, ` 10`, `10.0`
 * for integers), then checked by Ajv against the parameter's schema.
 *
 * Every problem is one detail; values are never echoed back (they can be
 * huge or hold secrets), names are, cut at 100 characters. At most
 * MAX_ERROR_DETAILS details are listed so a hostile query cannot turn a small
 * request into a large answer; `message` tells how many problems there were.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createSchemaCompiler } from './ajv.ts';
import { openApiDocument } from './document.ts';
import { invalidParameters } from '../errors.ts';
import { MAX_ERROR_DETAILS } from './error-schemas.ts';
import { SINCE_PATTERN } from './parameters.ts';
import { parseIsoDate } from '../reviews/iso-date.ts';
import type { JsonSchema, OpenApiDocument, ParameterObject } from './types.ts';

/** Operations whose query string is validated (health endpoints ignore theirs). */
export type QueryOperationKey = 'listReviews' | 'listInvitations' | 'getStats' | 'getEmbed' | 'getSchema' | 'getOpenApi' | 'getPublicWidget' | 'getPublicWidgetHtml';

export interface ListReviewsParams {
  limit: number;
  offset: number;
  /** Upper-cased; matches no review when no platform has this id. */
  platform?: string;
  minRating?: number;
  maxRating?: number;
  /** Strictly after. A date without a time is 00:00 UTC of that day. */
  since?: Date;
  /** Lower-cased ISO 639-1 code; matches no review when none has this language. */
  language?: string;
  /** A catalog id, exact; matches no review when none names this product. */
  productId?: string;
}

/** The operations that take no query parameter validate to an empty object. */
export type NoParams = Record<string, never>;

export interface QueryValues {
  listReviews: ListReviewsParams;
  /** limit and offset as given (the route applies the defaults). */
  listInvitations: { state?: string; limit?: number; offset?: number };
  getStats: { productId?: string };
  getEmbed: NoParams;
  getSchema: { productId?: string };
  getOpenApi: NoParams;
  getPublicWidget: { productId?: string };
  getPublicWidgetHtml: { lang?: string; productId?: string };
}

export interface ParameterProblem {
  parameter: string;
  message: string;
}

export type QueryResult<T> =
  | { ok: true; value: T }
  | { ok: false; details: ParameterProblem[]; /** Names the parameters, or counts the problems. */ message: string };

const MAX_NAME_SHOWN = 100;

interface CompiledParameter {
  name: string;
  schema: JsonSchema;
  validate: ValidateFunction;
  /** What a valid value looks like, for the error message. */
  expected: string;
  /** A date or date-time string (the `since` pattern), handed out as a Date. */
  instant: boolean;
}

const INVALID = Symbol('invalid');
// More digits than this are out of every bound; refusing them early keeps Number() exact.
const INTEGER = /^-?\d{1,15}$/;
const DECIMAL = /^-?\d{1,15}(?:\.\d{1,15})?$/;

function coerce(raw: string, schema: JsonSchema): unknown {
  switch (schema.type) {
    case 'integer':
      return INTEGER.test(raw) ? Number(raw) + 0 : INVALID; // + 0 turns -0 into 0
    case 'number':
      return DECIMAL.test(raw) ? Number(raw) + 0 : INVALID;
    case 'string':
      return raw;
    default:
      throw new Error(`query parameter schema of type ${String(schema.type)} has no coercion rule`);
  }
}

function expectation(schema: JsonSchema): string {
  if (schema.type === 'integer' || schema.type === 'number') {
    const noun = schema.type === 'integer' ? 'an integer' : 'a number';
    const { minimum: min, maximum: max } = schema;
    if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
    if (min !== undefined) return `${noun} of at least ${min}`;
    if (max !== undefined) return `${noun} of at most ${max}`;
    return noun;
  }
  return schema.title ?? 'a string';
}

function queryParameters(doc: OpenApiDocument, operationId: string): readonly ParameterObject[] {
  for (const item of Object.values(doc.paths)) {
    if (item.get.operationId === operationId) return (item.get.parameters ?? []).filter((p) => p.in === 'query');
  }
  throw new Error(`the OpenAPI document has no operation ${operationId}`);
}

const document = openApiDocument();
const compiler = createSchemaCompiler(document);
const compiled = new Map<QueryOperationKey, CompiledParameter[]>();

function parametersOf(key: QueryOperationKey): CompiledParameter[] {
  let params = compiled.get(key);
  if (!params) {
    params = queryParameters(document, key).map((p) => ({
      name: p.name,
      schema: p.schema,
      validate: compiler.compile(p.schema),
      expected: expectation(p.schema),
      instant: p.schema.pattern === SINCE_PATTERN,
    }));
    compiled.set(key, params);
  }
  return params;
}

function shown(name: string): string {
  return name.length > MAX_NAME_SHOWN ? `${name.slice(0, MAX_NAME_SHOWN)}…` : name;
}

function normalized(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** `min_rating`, `MINRATING`, `minRatng` → minRating. */
function closest(name: string, known: readonly string[]): string | undefined {
  const n = normalized(name);
  if (n.length === 0 || n.length > 40) return undefined;
  const exact = known.find((k) => normalized(k) === n);
  if (exact) return exact;
  let best: { name: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(n, normalized(k));
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: k, distance };
  }
  return best?.name;
}

function unknownMessage(name: string, known: readonly string[]): string {
  if (known.length === 0) return 'unknown parameter: this endpoint takes no query parameters';
  const guess = closest(name, known);
  return guess ? `unknown parameter; did you mean ${guess}?` : `unknown parameter; expected one of ${known.join(', ')}`;
}

/**
 * An unencoded `+05:30` arrives as ` 05:30` (a `+` in a query string means a
 * space). A space is never valid there, so reading it back as `+` is unambiguous.
 */
function unmangleOffset(value: string): string {
  return /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)? \d{2}(?::?\d{2})?$/.test(value) ? value.replace(/ (\d{2}(?::?\d{2})?)$/, '+$1') : value;
}

/**
 * `since` → Date, or null when it names no real day or time (2024-02-30,
 * 24:00) or one Date cannot represent. The pattern already checked the shape;
 * the import's reader (api/reviews/iso-date.ts) does the rest, so both read
 * dates alike.
 */
export function parseSince(value: string): Date | null {
  const iso = parseIsoDate(value);
  return iso === null ? null : new Date(iso);
}

function summary(details: ParameterProblem[], total: number): string {
  if (total > details.length) return `${total} query parameter problems; the first ${details.length} are listed.`;
  const names = [...new Set(details.map((d) => d.parameter))];
  return names.length === 1 ? `Invalid query parameter: ${names[0]}.` : `Invalid query parameters: ${names.join(', ')}.`;
}

/** A numeric parameter's value, else its default. */
function numberParameter(values: Map<string, unknown>, params: CompiledParameter[], name: string): number | undefined {
  const v = values.get(name) ?? params.find((p) => p.name === name)?.schema.default;
  return typeof v === 'number' ? v : undefined;
}

function listReviewsValue(values: Map<string, unknown>, params: CompiledParameter[]): ListReviewsParams {
  const limit = numberParameter(values, params, 'limit');
  const offset = numberParameter(values, params, 'offset');
  if (limit === undefined || offset === undefined) throw new Error('the document gives limit and offset no default');
  const out: ListReviewsParams = { limit, offset };
  const platform = values.get('platform');
  if (typeof platform === 'string') out.platform = platform.toUpperCase();
  const minRating = numberParameter(values, params, 'minRating');
  if (minRating !== undefined) out.minRating = minRating;
  const maxRating = numberParameter(values, params, 'maxRating');
  if (maxRating !== undefined) out.maxRating = maxRating;
  const since = values.get('since');
  if (since instanceof Date) out.since = since;
  const language = values.get('language');
  if (typeof language === 'string') out.language = language.toLowerCase();
  const productId = values.get('productId');
  if (typeof productId === 'string') out.productId = productId;
  return out;
}

export function validateQuery<K extends QueryOperationKey>(operation: K, search: URLSearchParams): QueryResult<QueryValues[K]> {
  const params = parametersOf(operation);
  const known = params.map((p) => p.name);
  const occurrences = new Map<string, string[]>();
  for (const [name, value] of search) {
    const list = occurrences.get(name);
    if (list) list.push(value);
    else occurrences.set(name, [value]);
  }

  const problems: ParameterProblem[] = [];
  const values = new Map<string, unknown>();
  for (const [name, raw] of occurrences) {
    const param = params.find((p) => p.name === name);
    let message: string | undefined;
    if (!param) message = unknownMessage(name, known);
    else if (raw.length > 1) message = `must be given once, not ${raw.length} times`;
    else if (raw[0] === '') message = `must not be empty; expected ${param.expected}`;
    else {
      const text = param.instant ? unmangleOffset(raw[0]!) : raw[0]!;
      let value = coerce(text, param.schema);
      const valid = value !== INVALID && param.validate(value);
      if (valid && param.instant) value = parseSince(text) ?? INVALID;
      if (!valid || value === INVALID) message = `must be ${param.expected}`;
      else values.set(name, value);
    }
    if (message !== undefined) problems.push({ parameter: shown(name), message });
  }

  const min = values.get('minRating');
  const max = values.get('maxRating');
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    problems.push({ parameter: 'minRating', message: `must not be greater than maxRating (${min} > ${max})` });
  }

  if (problems.length > 0) {
    const details = problems.slice(0, MAX_ERROR_DETAILS);
    return { ok: false, details, message: summary(details, problems.length) };
  }
  const value = operation === 'listReviews' ? listReviewsValue(values, params) : Object.fromEntries(values);
  return { ok: true, value: value as QueryValues[K] };
}

/** Valid query strings remembered by validQuery, at most (then forgotten all at once). */
export const VALID_QUERY_MEMO = 512;
const validQueries = new Map<string, unknown>();

/**
 * The validated parameters of a query string, or the 400 invalid_parameters
 * error thrown. Validation is a pure function of the string and the same URLs
 * come again and again (a site's widget, a developer's poll), so the last few
 * hundred valid strings' values are remembered (frozen, and a Date given as a
 * copy of its own to each caller). Invalid strings are checked every time.
 */
export function validQuery<K extends QueryOperationKey>(operation: K, querystring: string): QueryValues[K] {
  const key = `${operation}?${querystring}`;
  const known = validQueries.get(key) as (QueryValues[K] & { since?: Date }) | undefined;
  // A Date stays mutable in a frozen object: each caller gets its own.
  if (known !== undefined) return known.since instanceof Date ? { ...known, since: new Date(known.since.getTime()) } : known;
  const parsed = validateQuery(operation, new URLSearchParams(querystring));
  if (!parsed.ok) throw invalidParameters(parsed.details, parsed.message);
  if (validQueries.size >= VALID_QUERY_MEMO) validQueries.clear();
  const value = parsed.value as QueryValues[K] & { since?: Date };
  validQueries.set(key, Object.freeze(value.since instanceof Date ? { ...value, since: new Date(value.since.getTime()) } : { ...value }));
  return value;
}
