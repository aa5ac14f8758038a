/**
 * A catalog product as given (the CLI's flags, an import line, later the
 * dashboard's form) checked against CONTRACT §13. Every problem is named in
 * the reason, not only the first.
 */
import { PRODUCT_ID } from '../store/product-types.ts';
import { gtinProblem } from './gtin.ts';

/** The fields a product record may carry (CSV header, NDJSON keys). */
export const PRODUCT_FIELDS = ['id', 'name', 'url', 'imageUrl', 'gtin', 'brand'] as const;
export const REQUIRED_PRODUCT_FIELDS = ['id', 'name'] as const;

export const PRODUCT_LIMITS = { name: 200, brand: 200, url: 2048 } as const;

export interface ProductFields {
  id: string;
  name: string;
  url: string | null;
  imageUrl: string | null;
  gtin: string | null;
  brand: string | null;
}

/** One problem of a product record, with the field it is about (`record` for the whole record). */
export interface ProductProblem {
  field: (typeof PRODUCT_FIELDS)[number] | 'record';
  message: string;
}

export type ProductValidation = { ok: true; value: ProductFields } | { ok: false; reason: string; problems: ProductProblem[] };

/** Why `value` is not a product id, or null (1–100 of A–Z a–z 0–9 . _ -). */
export function productIdProblem(value: unknown, field = 'id'): string | null {
  if (typeof value !== 'string' || value === '') return `${field} is required`;
  if (!PRODUCT_ID.test(value)) return `${field} must be 1-100 characters of A-Z a-z 0-9 . _ -`;
  return null;
}

function length(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

function httpsUrl(value: unknown, field: 'url' | 'imageUrl', problems: ProductProblem[]): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') {
    problems.push({ field, message: `${field} must be an https URL` });
    return null;
  }
  const text = value.trim();
  if (text.length > PRODUCT_LIMITS.url) {
    problems.push({ field, message: `${field} is longer than ${PRODUCT_LIMITS.url} characters` });
    return null;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    problems.push({ field, message: `${field} must be an https URL` });
    return null;
  }
  if (url.protocol !== 'https:') {
    problems.push({ field, message: `${field} must use https, not ${url.protocol.replace(':', '')}` });
    return null;
  }
  return url.href;
}

function text(value: unknown, field: 'name' | 'brand', max: number, required: boolean, problems: ProductProblem[]): string | null {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    if (required) problems.push({ field, message: `${field} is required` });
    return null;
  }
  if (typeof value !== 'string') {
    problems.push({ field, message: `${field} must be a string` });
    return null;
  }
  const trimmed = value.trim().toWellFormed();
  if (length(trimmed) > max) {
    problems.push({ field, message: `${field} is longer than ${max} characters` });
    return null;
  }
  return trimmed;
}

export function validateProduct(raw: unknown): ProductValidation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: 'a product must be a JSON object', problems: [{ field: 'record', message: 'a product must be a JSON object' }] };
  const r = raw as Record<string, unknown>;
  const problems: ProductProblem[] = [];
  const unknown = Object.keys(r).filter((k) => !(PRODUCT_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    const named = unknown.slice(0, 5).map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k)).join(', ');
    problems.push({ field: 'record', message: `unknown field${unknown.length > 1 ? 's' : ''} ${named}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''} (known: ${PRODUCT_FIELDS.join(', ')})` });
  }
  // An id is taken as written: it is a key, and trimming would make two ids one.
  const idProblem = productIdProblem(typeof r.id === 'number' && Number.isSafeInteger(r.id) && r.id >= 0 ? String(r.id) : r.id);
  if (idProblem) problems.push({ field: 'id', message: idProblem });
  const name = text(r.name, 'name', PRODUCT_LIMITS.name, true, problems);
  const url = httpsUrl(r.url, 'url', problems);
  const imageUrl = httpsUrl(r.imageUrl, 'imageUrl', problems);
  const brand = text(r.brand, 'brand', PRODUCT_LIMITS.brand, false, problems);
  let gtin: string | null = null;
  if (r.gtin !== undefined && r.gtin !== null && r.gtin !== '') {
    const value = typeof r.gtin === 'number' && Number.isSafeInteger(r.gtin) ? String(r.gtin) : r.gtin;
    if (typeof value !== 'string') problems.push({ field: 'gtin', message: 'gtin must be a string of digits' });
    else {
      const problem = gtinProblem(value.trim());
      if (problem) problems.push({ field: 'gtin', message: problem });
      else gtin = value.trim();
    }
  }
  if (problems.length > 0) return { ok: false, reason: problems.map((p) => p.message).join('; '), problems };
  return { ok: true, value: { id: String(r.id), name: name!, url, imageUrl, gtin, brand } };
}

/** One CSV cell of a product file as its JSON value: an empty cell is absent, the rest is text (a gtin keeps its leading zeros). */
export function productCsvCell(_field: string, raw: string): unknown {
  return raw.trim() === '' ? undefined : raw;
}
