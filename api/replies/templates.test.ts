/**
 * Reply templates' pure parts (CONTRACT §15): the fields checked with a
 * message per problem, the placeholders filled in, and the proposal (the
 * review's rating and language both suit; the most particular first).
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { fillTemplate, parseTemplate, proposeTemplate } from './templates.ts';

const good = { name: 'Thanks', language: 'en', ratings: [5, 4, 5], text: 'Thank you, {author}! {business} hopes you enjoy {product}.' };

function refusal(body: unknown): { status: number; message: string; parameter: string | undefined } {
  try {
    parseTemplate(body);
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, message: err.message, parameter: (err.details[0] as { parameter?: string } | undefined)?.parameter };
    throw err;
  }
  throw new Error('accepted');
}

describe('reply templates', () => {
  it('checks each field, in words naming it (a 400, never a 500)', () => {
    expect(parseTemplate({ ...good, name: '  Thanks  ', language: 'EN' })).toEqual({ name: 'Thanks', language: 'en', ratings: [4, 5], text: good.text });
    expect(refusal(null)).toMatchObject({ status: 400, message: /JSON object/ });
    expect(refusal([good])).toMatchObject({ status: 400 });
    expect(refusal({ ...good, name: ' ' })).toEqual({ status: 400, message: 'The template needs a name.', parameter: 'name' });
    expect(refusal({ ...good, name: 'x'.repeat(81) })).toMatchObject({ parameter: 'name', message: /81 characters long; at most 80/ });
    expect(refusal({ ...good, language: 'english' })).toMatchObject({ parameter: 'language', message: /two-letter code/ });
    expect(refusal({ ...good, ratings: [] })).toMatchObject({ parameter: 'ratings', message: /at least one rating/ });
    expect(refusal({ ...good, ratings: 5 })).toMatchObject({ parameter: 'ratings' });
    expect(refusal({ ...good, ratings: [0, 6] })).toMatchObject({ parameter: 'ratings', message: /from 1 to 5/ });
    expect(refusal({ ...good, ratings: [4.5] })).toMatchObject({ parameter: 'ratings' });
    expect(refusal({ ...good, text: '' })).toMatchObject({ parameter: 'text', message: /empty/ });
    expect(refusal({ ...good, text: 'é'.repeat(2049) })).toMatchObject({ parameter: 'text', message: /4,098 bytes of UTF-8; at most 4,096/ });
    expect(refusal({ ...good, text: 'Hi {customer}' })).toEqual({ status: 400, message: '{customer} is not a placeholder: use {author}, {business} or {product}.', parameter: 'text' });
  });

  it('fills the placeholders in ({product}: the business when the review names no product)', () => {
    expect(fillTemplate(good.text, { author: 'Ana', business: 'Acme', product: 'Espresso beans' })).toBe('Thank you, Ana! Acme hopes you enjoy Espresso beans.');
    expect(fillTemplate('{product} {author}{author}', { author: 'Ben', business: 'Acme', product: null })).toBe('Acme BenBen');
    // A name with "$&" stays as written (no replacement patterns).
    expect(fillTemplate('Hi {author}', { author: '$& $1', business: 'B', product: null })).toBe('Hi $& $1');
  });

  it('proposes the template whose language and rating both suit the review, the most particular first', () => {
    const templates = [
      { name: 'Any good', language: 'en', ratings: [3, 4, 5] },
      { name: 'Five', language: 'en', ratings: [5] },
      { name: 'Fünf', language: 'de', ratings: [5] },
      { name: 'Sorry', language: 'en', ratings: [1, 2] },
    ];
    expect(proposeTemplate(templates, { language: 'en', rating: 5 })?.name).toBe('Five');
    expect(proposeTemplate(templates, { language: 'en', rating: 4 })?.name).toBe('Any good');
    expect(proposeTemplate(templates, { language: 'de-AT', rating: 5 })?.name).toBe('Fünf');
    expect(proposeTemplate(templates, { language: 'EN', rating: 1 })?.name).toBe('Sorry');
    expect(proposeTemplate(templates, { language: 'de', rating: 2 })).toBeNull();
    expect(proposeTemplate(templates, { language: 'fr', rating: 5 })).toBeNull();
    expect(proposeTemplate(templates, { language: 'en', rating: null })).toBeNull();
  });
});
