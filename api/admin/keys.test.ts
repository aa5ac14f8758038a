import { describe, expect, it } from 'vitest';
import { parseExpiry } from './keys.ts';

describe('parseExpiry', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  it('takes a date as the end of that day (UTC) and a date-time with a zone as given', () => {
    expect(parseExpiry('2027-01-01', now)).toBe('2027-01-01T23:59:59.999Z');
    expect(parseExpiry('2027-01-01T10:00:00+02:00', now)).toBe('2027-01-01T08:00:00.000Z');
  });
  it.each(['2027-02-30', '2027-02-30T10:00:00Z', '2027-01-01T24:00:00Z', '2027-13-01', '2027-01-01T10:00', 'tomorrow', '1767225600', ''])('refuses %s', (value) => {
    expect(() => parseExpiry(value, now)).toThrow();
  });
  it('refuses the past', () => {
    expect(() => parseExpiry('2026-11-20', now)).toThrow(/past/);
    expect(() => parseExpiry('2026-11-21T11:59:59Z', now)).toThrow(/past/);
  });
});
