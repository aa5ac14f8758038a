/**
 * Offline validation of an emitted JSON-LD document by three independent
 * checks, none of which shares code or types with the builder:
 * 1. `jsonld` expansion in safe mode against a bundled context that defines
 *    only schema.org terms: an unknown term or type is an error, never dropped;
 * 2. a vocabulary walk: each property is allowed on its node's type (domain)
 *    and each value has an allowed type (range);
 * 3. Google's review snippet requirements for a rated item (name, and a
 *    rating or review to show), which the next check applies to Product only;
 * 4. `@adobe/structured-data-validator` with Google's Product, Review, Rating,
 *    AggregateRating, Person, Organization and Recipe rules, plus its schema.org
 *    check fed the same bundled vocabulary.
 */
import Validator, { type ValidationIssue } from '@adobe/structured-data-validator';
import jsonld from 'jsonld';
import type { JsonLdDocument, Options } from 'jsonld';
import { CLASSES, DATA_TYPES, type DataType, PROPERTIES, isSubclassOf, schemaOrgContext, schemaOrgGraph } from './vocabulary.ts';

export interface ValidationReport {
  /** Anything that makes the document wrong. Empty means valid. */
  errors: string[];
  /** Google's "recommended" properties that are missing, for information. */
  warnings: string[];
}

type RemoteDocument = Awaited<ReturnType<NonNullable<Options.DocLoader['documentLoader']>>>;

const SCHEMA_ORG_CONTEXT_URLS = new Set(['https://schema.org', 'https://schema.org/', 'http://schema.org', 'http://schema.org/']);

/** Serves the bundled context for schema.org and refuses every other URL: no network. */
async function offlineLoader(url: string): Promise<RemoteDocument> {
  if (SCHEMA_ORG_CONTEXT_URLS.has(url)) return { contextUrl: undefined, documentUrl: url, document: schemaOrgContext() as RemoteDocument['document'] };
  throw new Error(`offline document loader: refusing to fetch ${url}`);
}

export async function validateJsonLd(doc: object): Promise<ValidationReport> {
  const errors: string[] = [];
  const warnings: string[] = [];

  errors.push(...(await expansionErrors(doc)));
  errors.push(...vocabularyErrors(doc));
  errors.push(...reviewSnippetErrors(doc));

  const type = (doc as { '@type'?: unknown })['@type'];
  const issues: ValidationIssue[] = await googleReviewValidator().validate({
    jsonld: { [typeof type === 'string' ? type : 'Thing']: [structuredClone(doc)] },
  });
  for (const issue of issues) {
    const text = `adobe: ${issue.issueMessage} [${(issue.fieldNames ?? []).join(', ')}]`;
    // Its schema.org check reports unknown properties as warnings; for us they are errors.
    if (issue.severity === 'ERROR' || issue.errorType === 'schemaOrg') errors.push(text);
    else warnings.push(text);
  }
  return { errors, warnings };
}

/**
 * Google's Product rules come in two modules: product snippets (name plus one of
 * review, aggregateRating, offers) and merchant listings (offers, image, GTIN…
 * for pages that sell). A review widget earns product snippets; the merchant
 * listing module (registered second) is not the rule set that applies here.
 */
function googleReviewValidator(): Validator {
  const validator = new Validator(schemaOrgGraph());
  const product = validator.registeredHandlers.Product;
  if (!product || product.length !== 2) throw new Error('@adobe/structured-data-validator: unexpected Product handlers');
  validator.registeredHandlers.Product = product.slice(0, 1);
  return validator;
}

/**
 * Review snippet rules for the reviewed item at the root: Google requires
 * `itemReviewed.name` (here the item's own name) and shows stars only from an
 * aggregateRating or a review.
 */
function reviewSnippetErrors(doc: object): string[] {
  const node = doc as Record<string, unknown>;
  const errors: string[] = [];
  if (typeof node.name !== 'string' || node.name.trim() === '') errors.push('review snippet: the reviewed item has no name');
  if (node.aggregateRating === undefined && node.review === undefined) {
    errors.push('review snippet: neither aggregateRating nor review');
  }
  return errors;
}

async function expansionErrors(doc: object): Promise<string[]> {
  const options: Options.Expand & { safe: boolean } = {
    safe: true,
    documentLoader: (url: string) => offlineLoader(url),
  };
  try {
    const expanded = await jsonld.expand(doc as JsonLdDocument, options);
    const before = countValues(doc);
    const after = countValues(expanded);
    return before === after ? [] : [`jsonld: ${before} values in the document, ${after} after expansion`];
  } catch (err) {
    return [`jsonld: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`];
  }
}

/** Counts property values (leaves and nodes) outside keywords. */
function countValues(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countValues(v), 0);
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  for (const [key, v] of Object.entries(value)) {
    if (key === '@value') return 1;
    if (key.startsWith('@')) continue;
    n += Array.isArray(v) ? v.reduce((m: number, x) => m + (isNode(x) ? 1 + countValues(x) : 1), 0) : isNode(v) ? 1 + countValues(v) : 1;
  }
  return n;
}

function isNode(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !('@value' in v);
}

function vocabularyErrors(doc: object, path = '$'): string[] {
  const errors: string[] = [];
  const node = doc as Record<string, unknown>;
  const type = node['@type'];
  if (typeof type !== 'string' || !(type in CLASSES)) return [`${path}: unknown @type ${JSON.stringify(type)}`];
  for (const [key, raw] of Object.entries(node)) {
    if (key.startsWith('@')) continue;
    const prop = PROPERTIES[key];
    if (!prop) {
      errors.push(`${path}.${key}: not a schema.org property`);
      continue;
    }
    if (!prop.domain.some((d) => isSubclassOf(type, d))) {
      errors.push(`${path}.${key}: not a property of ${type}`);
    }
    const values = Array.isArray(raw) ? raw : [raw];
    values.forEach((value, i) => {
      const at = Array.isArray(raw) ? `${path}.${key}[${i}]` : `${path}.${key}`;
      if (value !== null && typeof value === 'object') {
        const vt = (value as { '@type'?: unknown })['@type'];
        if (typeof vt !== 'string' || !prop.range.some((r) => isSubclassOf(vt, r))) {
          errors.push(`${at}: a ${String(vt)} is not in the range of ${key} (${prop.range.join(', ')})`);
        }
        errors.push(...vocabularyErrors(value, at));
      } else if (!prop.range.some((r) => isDataType(r) && literalIs(value, r))) {
        errors.push(`${at}: ${JSON.stringify(value)} is not a ${prop.range.join(' or ')}`);
      }
    });
  }
  return errors;
}

function isDataType(name: string): name is DataType {
  return (DATA_TYPES as readonly string[]).includes(name);
}

function literalIs(value: unknown, type: DataType): boolean {
  switch (type) {
    case 'Text':
      return typeof value === 'string' && value.length > 0;
    case 'URL':
      return typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
    case 'Number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'Integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'Date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));
    case 'DateTime':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));
  }
}
