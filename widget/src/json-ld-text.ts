/**
 * Text for a `<script type="application/ld+json">` element. JSON.stringify
 * alone is not enough: review text containing `</script>` or `<!--` would end
 * or confuse the element, and U+2028/U+2029 break older JavaScript parsers.
 * Escaping them as \uXXXX keeps the JSON identical once parsed.
 */
const UNSAFE = /[<>&\u2028\u2029]/g;

function escapeChar(ch: string): string {
  return '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
}

export function jsonLdText(document: unknown): string {
  const json = JSON.stringify(document);
  // JSON.stringify(undefined) and friends return undefined: never emit "undefined".
  if (typeof json !== 'string') return 'null';
  return json.replace(UNSAFE, escapeChar);
}
