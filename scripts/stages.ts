/**
 * The stages of `npm test` (scripts/test.ts), run one after another: every
 * stage runs even when an earlier one failed (a failing unit test must not
 * hide the end-to-end suite), and the result names the stages that failed,
 * with a summary line per stage.
 */
import { spawnSync } from 'node:child_process';

export type Stage = [name: string, command: string[]];

export interface StagesResult {
  failed: string[];
  /** One line per stage: `  passed  name (N s)` or `  FAILED  name (N s)`. */
  summary: string[];
}

/** The line `npm test` puts before each of its parts. */
export function bannerLine(text: string): string {
  return `\n── npm test: ${text} ──\n`;
}

export function runStages(stages: readonly Stage[], options: { cwd: string; env: NodeJS.ProcessEnv; stdio?: 'inherit' | 'ignore'; say?: (text: string) => void }): StagesResult {
  const say = options.say ?? ((text: string) => process.stdout.write(text));
  const failed: string[] = [];
  const summary: string[] = [];
  for (const [name, [command, ...args]] of stages) {
    say(bannerLine(`${name}: ${[command, ...args].join(' ')}`));
    const started = performance.now();
    const result = spawnSync(command!, args, { cwd: options.cwd, env: options.env, stdio: options.stdio ?? 'inherit' });
    const ok = !result.error && result.status === 0;
    if (result.error) process.stderr.write(`${result.error.message}\n`);
    if (!ok) failed.push(name);
    summary.push(`  ${ok ? 'passed' : 'FAILED'}  ${name} (${Math.round((performance.now() - started) / 1000)} s)`);
  }
  return { failed, summary };
}
