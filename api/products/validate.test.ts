import { describe, expect, it } from 'vitest';
import { productIdProblem, validateProduct } from './validate.ts';

describe('validateProduct', () => {
  it('accepts a full product and normalizes its URLs', () => {
    expect(
      validateProduct({ id: 'Shoe.red_42-B', name: '  Trail Shoe  ', url: 'https://shop.example/shoe', imageUrl: 'https://cdn.example/a b.png', gtin: '00012345600012', brand: 'Acme' }),
    ).toEqual({
      ok: true,
      value: { id: 'Shoe.red_42-B', name: 'Trail Shoe', url: 'https://shop.example/shoe', imageUrl: 'https://cdn.example/a%20b.png', gtin: '00012345600012', brand: 'Acme' },
    });
  });

  it('accepts the minimal product, the optional fields null', () => {
    expect(validateProduct({ id: 'x', name: 'X', url: '', brand: null })).toEqual({ ok: true, value: { id: 'x', name: 'X', url: null, imageUrl: null, gtin: null, brand: null } });
  });

  it('names every problem of a record at once', () => {
    const result = validateProduct({ id: 'a b', name: '', url: 'http://shop.example', imageUrl: 'javascript:alert(1)', gtin: '12345', brand: 'b'.repeat(201), colour: 'red' });
    expect(result.ok).toBe(false);
    const reason = (result as { reason: string }).reason;
    for (const part of [/unknown field "colour"/, /id must be 1-100 characters/, /name is required/, /url must use https, not http/, /imageUrl must use https, not javascript/, /gtin must have 8, 12, 13 or 14 digits/, /brand is longer than 200/]) {
      expect(reason).toMatch(part);
    }
  });

  it('names the field of each problem (the dashboard form shows each beside its field), in the words of the reason', () => {
    const result = validateProduct({ id: 'a b', name: '', url: 'http://shop.example', imageUrl: 'javascript:alert(1)', gtin: '12345', brand: 'b'.repeat(201), colour: 'red' });
    if (result.ok) throw new Error('a record with problems was accepted');
    expect(result.problems.map((p) => p.field)).toEqual(['record', 'id', 'name', 'url', 'imageUrl', 'brand', 'gtin']);
    expect(result.problems.map((p) => p.message).join('; ')).toBe(result.reason);
    expect(result.problems.find((p) => p.field === 'gtin')!.message).toBe('gtin must have 8, 12, 13 or 14 digits');
  });

  it('refuses ids outside A-Z a-z 0-9 . _ - or longer than 100, and names longer than 200 characters', () => {
    for (const id of ['', ' x', 'x/y', 'é', 'x'.repeat(101), null]) expect(productIdProblem(id), String(id)).not.toBeNull();
    expect(productIdProblem('x'.repeat(100))).toBeNull();
    expect(validateProduct({ id: 'x', name: '🙂'.repeat(200) }).ok).toBe(true);
    expect(validateProduct({ id: 'x', name: '🙂'.repeat(201) })).toEqual({ ok: false, reason: 'name is longer than 200 characters', problems: [{ field: 'name', message: 'name is longer than 200 characters' }] });
    expect(validateProduct(['x'])).toEqual({ ok: false, reason: 'a product must be a JSON object', problems: [{ field: 'record', message: 'a product must be a JSON object' }] });
  });

  it('checks the gtin check digit', () => {
    const wrong = "gtin's check digit is wrong (expected 7 for 978030640615)";
    expect(validateProduct({ id: 'x', name: 'X', gtin: '9780306406158' })).toEqual({ ok: false, reason: wrong, problems: [{ field: 'gtin', message: wrong }] });
    expect(validateProduct({ id: 'x', name: 'X', gtin: 96385074 })).toMatchObject({ ok: true, value: { gtin: '96385074' } });
  });
});
