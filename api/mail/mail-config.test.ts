/** SMTP_FROM and SMTP_RATE_PER_MINUTE (CONTRACT §1): defaults, accepted forms, and a clear start-up error naming the variable. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';

function refusal(env: Record<string, string>): Error {
  try {
    loadConfig(env);
  } catch (err) {
    return err as Error;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('SMTP_RATE_PER_MINUTE', () => {
  it('is 60 unless set, and takes a whole number from 1', () => {
    expect(loadConfig({}).smtpRatePerMinute).toBe(60);
    expect(loadConfig({ SMTP_RATE_PER_MINUTE: '1' }).smtpRatePerMinute).toBe(1);
    expect(loadConfig({ SMTP_RATE_PER_MINUTE: '12000' }).smtpRatePerMinute).toBe(12000);
  });

  it.each(['0', '-5', '1.5', 'fast', '1e3', ' 60', '2000000'])('refuses %j, naming the variable', (value) => {
    const err = refusal({ SMTP_RATE_PER_MINUTE: value });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/^SMTP_RATE_PER_MINUTE: must be a whole number from 1 to 1000000/);
  });
});

describe('SMTP_FROM', () => {
  it("is Review Proof <no-reply@{PUBLIC_URL's host}> unless set", () => {
    expect(loadConfig({}).smtpFrom).toEqual({ name: 'Review Proof', address: 'no-reply@localhost' });
    expect(loadConfig({ PUBLIC_URL: 'https://reviews.shop.example' }).smtpFrom).toEqual({ name: 'Review Proof', address: 'no-reply@reviews.shop.example' });
  });

  it('takes a bare address or "Name <address>"', () => {
    expect(loadConfig({ SMTP_FROM: 'reviews@shop.example' }).smtpFrom).toEqual({ name: 'Review Proof', address: 'reviews@shop.example' });
    expect(loadConfig({ SMTP_FROM: 'Shop Reviews <reviews@shop.example>' }).smtpFrom).toEqual({ name: 'Shop Reviews', address: 'reviews@shop.example' });
  });

  it.each(['not an address', 'Shop <reviews@shop.example', 'a@b.example, c@d.example', 'Shop <a@b.example>\r\nBcc: x@y.example', 'Shop "x" <a@b.example>'])('refuses %j, naming the variable', (value) => {
    const err = refusal({ SMTP_FROM: value });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/^SMTP_FROM: must be an address or "Name <address>" on one line/);
  });
});
