/**
 * The builder's own check of a draft, before anything is sent: the problems
 * the server would answer 400 for, found in the browser, so that a known-bad
 * draft is never sent (no failed request in the console, the message at once),
 * each problem under the field that causes it. The rules are the admin API's
 * (api/admin/widgets.ts parseWidgetCreate); validate.test.ts runs both on the
 * same drafts and requires the same fields.
 */
import { bodyOf, type Draft } from './draft.ts';

/** Field of the API body (`options.maxReviews`) → the problem, in the server's words ("must be an integer from 1 to 50"). */
export type Problems = Record<string, string>;

const HEX = /^#[0-9a-fA-F]{6}$/;

function httpsProblem(text: string): string | null {
  const value = text.trim();
  if (value === '') return null;
  if (value.length > 2000) return 'must be an https URL';
  try {
    return new URL(value).protocol === 'https:' ? null : 'must be an https URL';
  } catch {
    return 'must be an https URL';
  }
}

/** Every problem of the draft, the widget's name included (Save needs it; the preview names an unnamed widget itself). */
export function draftProblems(d: Draft): Problems {
  const out: Problems = {};
  const body = bodyOf(d);
  if (d.name.trim() === '') out.name = 'must not be empty';
  else if (d.name.trim().length > 200) out.name = 'must be at most 200 characters';
  if (d.subjectName.trim().length > 200) out['subject.name'] = 'must be at most 200 characters';
  if (d.subjectBrand.trim().length > 200) out['subject.brand'] = 'must be at most 200 characters';
  const url = httpsProblem(d.subjectUrl);
  if (url) out['subject.url'] = url;
  const image = httpsProblem(d.subjectImage);
  if (image) out['subject.image'] = image;
  if (!HEX.test(d.accentColor)) out['options.accentColor'] = 'must be a hex colour like #4f46e5';
  const max = body.options.maxReviews;
  if (typeof max !== 'number' || max < 1 || max > 50) out['options.maxReviews'] = 'must be an integer from 1 to 50';
  if (d.platforms !== null && d.platforms.length === 0) out['options.platforms'] = 'must be a non-empty list of platform identifiers, or null for all';
  if (d.productMode === 'none' && d.sourceIds !== null && d.sourceIds.length === 0) out['options.sourceIds'] = 'must be a list of 1 to 50 source ids (src_…) of this organization, or null for every review';
  return out;
}

/** The problems the preview can show while the person types: all but the missing name, which only Save asks for. */
export function livePreviewProblems(d: Draft): Problems {
  const { name, ...rest } = draftProblems(d);
  return name && d.name.trim() !== '' ? { name, ...rest } : rest;
}

/**
 * The server's field problems, each under the field that causes it: an empty
 * "Name of what is reviewed" takes the widget's name (bodyOf), so a problem the
 * server finds with the subject's name, when that field was left empty, is a
 * problem of the widget's name.
 */
export function attribute(problems: Problems, d: Draft): Problems {
  if (!('subject.name' in problems) || d.subjectName.trim() !== '') return problems;
  const { 'subject.name': subjectName, ...rest } = problems;
  return { ...rest, name: rest.name ?? subjectName! };
}
