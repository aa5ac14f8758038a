/**
 * What the bundle checks before trusting the public data. The server builds
 * the exact shape; re-validating every field would cost a tenth of the size
 * budget, so the bundle guards the places where bad data could do harm:
 * texts are only ever rendered as text nodes (never interpreted as HTML),
 * every href and src passes `httpsUrl` at the point of use, and data of the
 * wrong overall shape is refused, so the loader shows nothing rather than
 * something broken. A field of the wrong type can at worst make the render
 * throw, which the loader catches.
 */
import type { PublicWidgetData } from './public-data.ts';

/** The URL if it is https:, else null: no javascript:, data:, or plain http. */
export function httpsUrl(value: unknown): string | null {
  // Most avatars are null: no exception thrown (and caught) for each of them.
  if (!value) return null;
  try {
    const url = new URL(value as string);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null;

/** The overall shape of PublicWidgetData: an id, options, a summary and a list of reviews. */
export function isWidgetData(value: unknown): value is PublicWidgetData {
  const d = value as PublicWidgetData;
  return isObject(d) && typeof d.id === 'string' && isObject(d.options) && isObject(d.summary) && Array.isArray(d.reviews);
}
