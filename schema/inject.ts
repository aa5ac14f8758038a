/**
 * When a widget's JSON-LD goes into the host page, and how it is written into
 * HTML so that no review text can end the script element or start a new one.
 */
import type { SubjectType, Widget } from '../api/store/types.ts';
import { JSON_LD_ATTR } from '../widget/src/protocol.ts';

/**
 * Subject types for which Google shows no review stars when the page belongs
 * to the subject itself ("self-serving reviews"). A widget shows its owner's
 * own reviews on its owner's site, so for these types it is always that case.
 */
export const SELF_SERVING_TYPES: ReadonlySet<string> = new Set<SubjectType>(['LocalBusiness', 'Organization']);

/**
 * Well-known schema.org subtypes of Organization and LocalBusiness. Subject
 * types are a closed list today; this keeps the rule right if it grows or if a
 * stored widget carries a subtype.
 */
const ORGANIZATION_SUBTYPES: ReadonlySet<string> = new Set([
  'Airline', 'AnimalShelter', 'AutoDealer', 'AutomotiveBusiness', 'BarOrPub', 'Bakery', 'BeautySalon',
  'CafeOrCoffeeShop', 'ChildCare', 'ClothingStore', 'Consortium', 'Corporation', 'Dentist',
  'EducationalOrganization', 'ElectronicsStore', 'EmploymentAgency', 'EntertainmentBusiness',
  'FinancialService', 'FoodEstablishment', 'GovernmentOrganization', 'HairSalon', 'HealthAndBeautyBusiness',
  'HomeAndConstructionBusiness', 'Hotel', 'LegalService', 'LodgingBusiness', 'MedicalBusiness',
  'MedicalOrganization', 'NGO', 'NewsMediaOrganization', 'OnlineBusiness', 'OnlineStore', 'PerformingGroup',
  'ProfessionalService', 'RealEstateAgent', 'Restaurant', 'SportsActivityLocation', 'SportsOrganization',
  'Store', 'TravelAgency',
]);

/** True for LocalBusiness, Organization and their known subtypes. */
export function isOrganizationType(type: string): boolean {
  return SELF_SERVING_TYPES.has(type) || ORGANIZATION_SUBTYPES.has(type);
}

/**
 * Whether the widget puts its JSON-LD into the host page.
 * - `off`: never.
 * - `on`: always (the site owner has decided, e.g. an Organization subject on a
 *   site that is not the organization's own).
 * - `auto` (default): only when the subject can earn review stars there, i.e.
 *   not for an Organization/LocalBusiness, which on its own site is self-serving;
 *   and, when the built document is given, only if it has an aggregateRating or
 *   a review (markup with neither earns nothing and shows up as an error in
 *   Search Console).
 */
export function shouldInject(widget: Pick<Widget, 'subject' | 'options'>, doc?: object): boolean {
  switch (widget.options.jsonLd) {
    case 'off':
      return false;
    case 'on':
      return true;
    // A stored widget from before the setting existed (or a bad value) gets the default.
    case 'auto':
    default:
      return !isOrganizationType(widget.subject.type) && (doc === undefined || hasRatingContent(doc));
  }
}

function hasRatingContent(doc: object): boolean {
  return 'aggregateRating' in doc || 'review' in doc;
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

/**
 * JSON text safe to place between `<script type="application/ld+json">` and
 * `</script>`: `<`, `>`, `&`, U+2028 and U+2029 become `\uXXXX` escapes, which
 * JSON parses back to the same characters. With no `<` in the output, the HTML
 * tokenizer cannot leave the script element's text (`</script`, `<!--` both need one).
 */
export function serializeJsonLdForHtml(doc: unknown): string {
  const json = JSON.stringify(doc);
  if (typeof json !== 'string') throw new TypeError('JSON-LD document is not serializable to JSON');
  return json.replace(HTML_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The complete script element. With a widget id it carries the attribute the
 * widget itself marks its injected element with (`data-rv-jsonld`), so a widget
 * on a page that already has the server-rendered document does not add another:
 * one document per widget.
 */
export function jsonLdScriptTag(doc: unknown, widgetId?: string): string {
  const attr = widgetId === undefined ? '' : ` ${JSON_LD_ATTR}="${escapeAttribute(widgetId)}"`;
  return `<script type="application/ld+json"${attr}>${serializeJsonLdForHtml(doc)}</script>`;
}

function escapeAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
