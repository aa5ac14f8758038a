/**
 * `npm test` runs every stage and fails at the end (issue 28, item 2): a
 * failing stage no longer hides the ones after it, as `a && b && c` did.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runStages, type Stage } from './stages.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A stage that leaves a mark in `dir` (so the test sees it ran) and exits with `code`. */
function stage(name: string, dir: string, code: number): Stage {
  return [name, [process.execPath, '-e', `require('node:fs').writeFileSync(${JSON.stringify(join(dir, name))}, ''); process.exit(${code})`]];
}

describe('npm test stages', () => {
  it('runs every stage after a failing one, and names each failed stage at the end', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stages-'));
    dirs.push(dir);
    const said: string[] = [];
    const result = runStages([stage('typecheck', dir, 0), stage('vitest', dir, 1), stage('links', dir, 0), stage('playwright', dir, 2)], {
      cwd: dir, env: process.env, stdio: 'ignore', say: (text) => said.push(text),
    });
    for (const name of ['typecheck', 'vitest', 'links', 'playwright']) expect(existsSync(join(dir, name)), `${name} ran`).toBe(true);
    expect(result.failed).toEqual(['vitest', 'playwright']);
    expect(result.summary.map((line) => line.replace(/\(\d+ s\)$/, '').trim())).toEqual(['passed  typecheck', 'FAILED  vitest', 'passed  links', 'FAILED  playwright']);
    expect(said.join('')).toContain('── npm test: playwright:');
  });

  it('counts a command that cannot start as a failed stage and goes on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stages-'));
    dirs.push(dir);
    const result = runStages([['missing', [join(dir, 'no-such-program')]], stage('after', dir, 0)], { cwd: dir, env: process.env, stdio: 'ignore', say: () => undefined });
    expect(result.failed).toEqual(['missing']);
    expect(existsSync(join(dir, 'after'))).toBe(true);
  });
});
