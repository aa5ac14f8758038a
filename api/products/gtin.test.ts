import { describe, expect, it } from 'vitest';
import { gtinCheckDigit, gtinProblem } from './gtin.ts';

describe('gtin', () => {
  it('accepts real GTINs of every length', () => {
    // EAN-8, UPC-A (12), EAN-13 (an ISBN-13), GTIN-14.
    for (const gtin of ['96385074', '036000291452', '9780306406157', '10012345678902', '00012345600012']) expect(gtinProblem(gtin), gtin).toBeNull();
  });

  it('computes the check digit with weights 3,1,3,… from the right', () => {
    expect(gtinCheckDigit('978030640615')).toBe(7);
    expect(gtinCheckDigit('03600029145')).toBe(2);
    expect(gtinCheckDigit('9638507')).toBe(4);
    expect(gtinCheckDigit('000000000000')).toBe(0);
  });

  it('rejects a wrong check digit, naming the right one', () => {
    expect(gtinProblem('9780306406158')).toBe("gtin's check digit is wrong (expected 7 for 978030640615)");
    expect(gtinProblem('036000291453')).toMatch(/check digit/);
  });

  it('rejects other lengths and non-digits', () => {
    expect(gtinProblem('1234567')).toBe('gtin must have 8, 12, 13 or 14 digits');
    expect(gtinProblem('12345678901')).toBe('gtin must have 8, 12, 13 or 14 digits');
    expect(gtinProblem('978-0306406157')).toBe('gtin must be digits only');
    expect(gtinProblem('')).toBe('gtin must be digits only');
    expect(gtinProblem('１２３４５６７８')).toBe('gtin must be digits only');
  });
});
