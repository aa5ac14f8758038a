/**
 * The builder's own check (validate.ts) finds, on the same drafts, the fields
 * the server's parser refuses (api/admin/widgets.ts, the one the dashboard's
 * widget routes use), each problem under the field that causes it: the empty
 * widget name is the widget name's problem, never "Name of what is reviewed".
 */
import { describe, expect, it } from 'vitest';
import { parseWidgetCreate, parseWidgetUpdate } from '../../../api/admin/widgets.ts';
import { ApiError } from '../../../api/errors.ts';
import { bodyOf, fieldErrors, NEW_DRAFT, type Draft } from './draft.ts';
import { attribute, draftProblems, livePreviewProblems } from './validate.ts';

/** Field → message of the server's 400, or {} when it takes the body. */
function serverProblems(parse: (raw: unknown) => unknown, body: unknown): Record<string, string> {
  try {
    parse(body);
    return {};
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return Object.fromEntries((err.details as { parameter: string; message: string }[]).map((d) => [d.parameter, d.message]));
  }
}

const named: Draft = { ...NEW_DRAFT, name: 'Home page' };
const DRAFTS: [string, Draft][] = [
  ['a valid new widget', named],
  ['no name, no subject name', { ...NEW_DRAFT }],
  ['a name of spaces', { ...NEW_DRAFT, name: '   ' }],
  ['no name, a subject name', { ...NEW_DRAFT, subjectName: 'Espresso beans' }],
  ['0 reviews shown', { ...named, maxReviews: '0' }],
  ['51 reviews shown', { ...named, maxReviews: '51' }],
  ['reviews shown not a number', { ...named, maxReviews: '12a' }],
  ['reviews shown empty', { ...named, maxReviews: '' }],
  ['an accent that is not a colour', { ...named, accentColor: '#12345' }],
  ['a page address over http', { ...named, subjectUrl: 'http://example.com/' }],
  ['a page address that is no address', { ...named, subjectUrl: 'not a url' }],
  ['an image over ftp', { ...named, subjectImage: 'ftp://example.com/a.png' }],
  ['no platform checked', { ...named, platforms: [] }],
  ['a name of 201 characters', { ...named, name: 'x'.repeat(201) }],
  ['everything wrong at once', { ...NEW_DRAFT, maxReviews: '99', accentColor: 'blue', subjectUrl: 'http://x', platforms: [] }],
];

describe('the builder’s own check of a draft', () => {
  for (const [what, draft] of DRAFTS) {
    it(`finds what the server refuses, under the field that causes it: ${what}`, () => {
      const server = attribute(serverProblems(parseWidgetCreate, { ...bodyOf(draft), orgId: 'org_1' }), draft);
      expect(draftProblems(draft)).toEqual(server);
    });
  }

  it('names the widget name when the widget has no name, on a new widget and on a saved one', () => {
    const draft = { ...NEW_DRAFT };
    // What the server answers for a saved widget whose name was cleared: only the subject's name, derived from it.
    const onSave = serverProblems(parseWidgetUpdate, bodyOf(draft));
    expect(onSave).toEqual({ 'subject.name': 'must not be empty' });
    expect(fieldErrors(attribute(onSave, draft))).toEqual({ name: 'Widget name must not be empty.' });
    expect(fieldErrors(draftProblems(draft))).toEqual({ name: 'Widget name must not be empty.' });
    // A subject name of its own keeps its own problems.
    const long = { ...named, subjectName: 'y'.repeat(201) };
    expect(fieldErrors(attribute(serverProblems(parseWidgetUpdate, bodyOf(long)), long))).toEqual({ 'subject.name': 'Name of what is reviewed must be at most 200 characters.' });
  });

  it('lets the preview show an unnamed widget, and nothing else that is wrong', () => {
    expect(livePreviewProblems({ ...NEW_DRAFT })).toEqual({});
    expect(livePreviewProblems({ ...NEW_DRAFT, maxReviews: '0' })).toEqual({ 'options.maxReviews': 'must be an integer from 1 to 50' });
  });
});
