import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';
import { chooseLogFormat, prettyDestination, prettyLine } from './log-format.ts';
import { createLogger } from './logger.ts';

describe('LOG_FORMAT', () => {
  it('is json or pretty; unset, the terminal decides', () => {
    expect(loadConfig({}).logFormat).toBeNull();
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'JSON ' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/^LOG_FORMAT: must be json or pretty/);
    expect(chooseLogFormat(null, true)).toBe('pretty');
    expect(chooseLogFormat(null, false)).toBe('json');
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
  });
});

describe('prettyLine', () => {
  it('prints what pino wrote as one readable line, the redaction kept, an error with its stack below', () => {
    const out: string[] = [];
    const logger = createLogger('info', prettyDestination({ write: (chunk: string) => out.push(chunk) }));
    logger.info({ requestId: 'r-1', method: 'GET', url: '/api/v1/reviews?api_key=[redacted]', status: 401, ms: 1.25, orgId: undefined }, 'request');
    logger.warn({ authorization: 'Bearer rvp_live_secret', note: 'two words' }, 'redis is down');
    const err = new Error('boom');
    logger.error({ err }, 'shutdown failed');
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  request GET \/api\/v1\/reviews\?api_key=\[redacted\] 401 1\.25 ms requestId=r-1\n$/);
    expect(out[1]).toMatch(/ WARN  redis is down authorization=\[redacted\] note="two words"\n$/);
    expect(out[2]).toMatch(/ ERROR shutdown failed err=boom\n {4}Error: boom\n {5,}at /);
    expect(out.join('')).not.toContain('rvp_live_secret');
    expect(out.join('')).not.toMatch(/^\{/m);
  });

  it('keeps a line that is not JSON as it is', () => {
    expect(prettyLine('plain text')).toBe('plain text\n');
  });
});
