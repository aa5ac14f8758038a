/** `npm start` builds quietly: the size tables are for `npm run build`, or for a build over budget. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFrontEnds } from './build.ts';

describe('buildFrontEnds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'front-ends-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const outs = { widgetOut: join(dir, 'widget'), dashboardOut: join(dir, 'dashboard') };

  it('prints nothing with quiet (npm start) when every budget holds, and both size tables without it (npm run build)', async () => {
    const quiet: string[] = [];
    expect(await buildFrontEnds({ quiet: true, print: (line) => quiet.push(line), ...outs })).toBe(true);
    expect(quiet).toEqual([]);
    const loud: string[] = [];
    expect(await buildFrontEnds({ quiet: false, print: (line) => loud.push(line), ...outs })).toBe(true);
    expect(loud.find((line) => line.startsWith('loader.js'))).toBeTruthy();
    expect(loud.some((line) => /^ok\s+dashboard, every page/.test(line))).toBe(true);
    expect(loud.length).toBeGreaterThan(30);
  }, 60_000);
});
