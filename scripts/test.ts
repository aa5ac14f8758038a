/**
 * `npm test`: every stage runs even when an earlier one failed (a failing unit
 * test must not hide the end-to-end suite); the run fails at the end, naming
 * the stages that failed. Only a missing prerequisite that could not be
 * installed stops it early: nothing after it could run.
 *
 * `npm test -- api/x.test.ts e2e/y.spec.ts` runs just those files in the
 * vitest and Playwright stages.
 */
import { join } from 'node:path';
import { ensurePrereqs } from '../api/test/prereqs.ts';
import { bannerLine, runStages, type Stage } from './stages.ts';

const ROOT = join(import.meta.dirname, '..');
const files = process.argv.slice(2);
const unitFiles = files.filter((f) => !f.endsWith('.spec.ts'));
const e2eFiles = files.filter((f) => f.endsWith('.spec.ts'));

/** node_modules/.bin first, as under `npm run`, also when started as `tsx scripts/test.ts`. */
const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` };

const stages: Stage[] = [
  ['typecheck', ['tsc', '--noEmit', '-p', '.']],
  ['widget build', ['tsx', 'widget/build.ts']],
  ['links', ['tsx', 'scripts/check-links.ts']],
  ...(files.length === 0 || unitFiles.length > 0 ? [['vitest', ['vitest', 'run', ...unitFiles]] as Stage] : []),
  ...(files.length === 0 || e2eFiles.length > 0 ? [['playwright', ['playwright', 'test', ...e2eFiles]] as Stage] : []),
];

function banner(text: string): void {
  process.stdout.write(bannerLine(text));
}

banner(`prerequisites (Node ${process.version})`);
const prereqs = ensurePrereqs();
if (!prereqs.ok) {
  process.stderr.write(`\nnpm test cannot run: ${prereqs.message}\n`);
  process.exit(1);
}
Object.assign(env, prereqs.env);

const { failed, summary } = runStages(stages, { cwd: ROOT, env });

banner('summary');
process.stdout.write(`${summary.join('\n')}\n`);
if (failed.length > 0) {
  process.stderr.write(`\nnpm test failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write('\nnpm test: every stage passed\n');
