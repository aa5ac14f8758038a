/**
 * A hand-written excerpt of the schema.org vocabulary (https://schema.org,
 * release 29): the classes and properties a widget document may use, with
 * their superclasses, domains and ranges. Written from schema.org, not from
 * schema-dts, so the run-time checks are independent of the compile-time types.
 * Remote contexts cannot be fetched here; this is what the validators load.
 */

export interface VocabClass {
  readonly parents: readonly string[];
}

export interface VocabProperty {
  /** schema:domainIncludes */
  readonly domain: readonly string[];
  /** schema:rangeIncludes (classes or data types) */
  readonly range: readonly string[];
}

/** Data types: values are JSON literals, not nodes. */
export const DATA_TYPES = ['Text', 'URL', 'Number', 'Integer', 'Date', 'DateTime'] as const;
export type DataType = (typeof DATA_TYPES)[number];

export const CLASSES: Readonly<Record<string, VocabClass>> = {
  Thing: { parents: [] },
  CreativeWork: { parents: ['Thing'] },
  Event: { parents: ['Thing'] },
  Organization: { parents: ['Thing'] },
  Person: { parents: ['Thing'] },
  Place: { parents: ['Thing'] },
  Product: { parents: ['Thing'] },
  Intangible: { parents: ['Thing'] },
  LocalBusiness: { parents: ['Organization', 'Place'] },
  Brand: { parents: ['Intangible'] },
  Offer: { parents: ['Intangible'] },
  Rating: { parents: ['Intangible'] },
  AggregateRating: { parents: ['Rating'] },
  Series: { parents: ['Intangible'] },
  Service: { parents: ['Intangible'] },
  Review: { parents: ['CreativeWork'] },
  Book: { parents: ['CreativeWork'] },
  Course: { parents: ['CreativeWork'] },
  CreativeWorkSeason: { parents: ['CreativeWork'] },
  CreativeWorkSeries: { parents: ['CreativeWork', 'Series'] },
  Episode: { parents: ['CreativeWork'] },
  Game: { parents: ['CreativeWork'] },
  HowTo: { parents: ['CreativeWork'] },
  Recipe: { parents: ['HowTo'] },
  MediaObject: { parents: ['CreativeWork'] },
  ImageObject: { parents: ['MediaObject'] },
  Movie: { parents: ['CreativeWork'] },
  MusicPlaylist: { parents: ['CreativeWork'] },
  MusicRecording: { parents: ['CreativeWork'] },
  SoftwareApplication: { parents: ['CreativeWork'] },
};

const RATED = ['Brand', 'CreativeWork', 'Event', 'Offer', 'Organization', 'Place', 'Product', 'Service'];

export const PROPERTIES: Readonly<Record<string, VocabProperty>> = {
  name: { domain: ['Thing'], range: ['Text'] },
  url: { domain: ['Thing'], range: ['URL'] },
  image: { domain: ['Thing'], range: ['ImageObject', 'URL'] },
  brand: { domain: ['Organization', 'Person', 'Product', 'Service'], range: ['Brand', 'Organization'] },
  // A catalog product's identifiers (CONTRACT §13); schema.org also has both on Demand, which no document here uses.
  sku: { domain: ['Offer', 'Product'], range: ['Text'] },
  gtin: { domain: ['Offer', 'Product'], range: ['Text', 'URL'] },
  aggregateRating: { domain: RATED, range: ['AggregateRating'] },
  review: { domain: RATED, range: ['Review'] },
  ratingValue: { domain: ['Rating'], range: ['Number', 'Text'] },
  bestRating: { domain: ['Rating'], range: ['Number', 'Text'] },
  worstRating: { domain: ['Rating'], range: ['Number', 'Text'] },
  reviewCount: { domain: ['AggregateRating'], range: ['Integer'] },
  ratingCount: { domain: ['AggregateRating'], range: ['Integer'] },
  itemReviewed: { domain: ['AggregateRating', 'Review'], range: ['Thing'] },
  author: { domain: ['CreativeWork', 'Rating'], range: ['Organization', 'Person'] },
  datePublished: { domain: ['CreativeWork'], range: ['Date', 'DateTime'] },
  reviewBody: { domain: ['Review'], range: ['Text'] },
  reviewRating: { domain: ['Review'], range: ['Rating'] },
};

/** True when `type` is `ancestor` or one of its subclasses. */
export function isSubclassOf(type: string, ancestor: string): boolean {
  if (type === ancestor) return true;
  const cls = CLASSES[type];
  return cls !== undefined && cls.parents.some((p) => isSubclassOf(p, ancestor));
}

const ref = (name: string): { '@id': string } => ({ '@id': `schema:${name}` });

/**
 * The excerpt in the layout of schema.org's own `schemaorg-all-https.jsonld`,
 * which is what @adobe/structured-data-validator reads for its schema.org checks.
 */
export function schemaOrgGraph(): { '@context': Record<string, string>; '@graph': object[] } {
  const classes = Object.entries(CLASSES).map(([name, cls]) => ({
    '@id': `schema:${name}`,
    '@type': 'rdfs:Class',
    'rdfs:label': name,
    ...(cls.parents.length > 0 ? { 'rdfs:subClassOf': cls.parents.map(ref) } : {}),
  }));
  const properties = Object.entries(PROPERTIES).map(([name, prop]) => ({
    '@id': `schema:${name}`,
    '@type': 'rdf:Property',
    'rdfs:label': name,
    'schema:domainIncludes': prop.domain.map(ref),
    'schema:rangeIncludes': prop.range.map(ref),
  }));
  return {
    '@context': {
      rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
      rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
      schema: 'https://schema.org/',
    },
    '@graph': [...classes, ...properties],
  };
}

/**
 * A JSON-LD context defining exactly the excerpt's terms and no `@vocab`, so
 * expansion drops (and safe mode rejects) any term schema.org does not define here.
 */
export function schemaOrgContext(): { '@context': Record<string, unknown> } {
  const context: Record<string, unknown> = { schema: 'https://schema.org/' };
  for (const name of Object.keys(CLASSES)) context[name] = { '@id': `schema:${name}` };
  for (const [name, prop] of Object.entries(PROPERTIES)) {
    const urlOnly = prop.range.length === 1 && prop.range[0] === 'URL';
    context[name] = urlOnly ? { '@id': `schema:${name}`, '@type': '@id' } : { '@id': `schema:${name}` };
  }
  return { '@context': context };
}
