/**
 * `npm run bench:intelligence:import [-- --reviews 1000000] [--given] [--profile]`:
 * the import path with enrichment on, as the service runs it. The input
 * (import-input.ts) is generated once per size and reused; import-run.ts is
 * compiled as `npm start` compiles the service (the compiled enrichment
 * worker included) and run with the service's Node flags, in a process of
 * its own. `--given`: every record brings its AI fields, nothing is computed
 * (the baseline). `--profile`: runs it under `--cpu-prof` and prints, for the
 * main thread and for each enrichment worker, the functions with the most
 * self time over the whole run (start-up included); the .cpuprofile files
 * stay in the folder printed at the end.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLikeService } from '../../api/build.ts';
import { flag, ROOT, SERVER_NODE_FLAGS } from '../support.ts';
import { benchInput } from './import-input.ts';

const REVIEWS = flag('reviews', 200_000);
const GIVEN = process.argv.includes('--given');
const PROFILE = process.argv.includes('--profile');
const TOP = flag('top', 20);

const input = await benchInput(REVIEWS, GIVEN);
const program = await buildLikeService(join(ROOT, 'bench', 'intelligence', 'import-run.ts'), join(ROOT, 'dist', 'bench', 'import-run.js'));
const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), 'rp-import-cpuprofile-')) : null;
const profileFlags = profileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, ...profileFlags, program, '--input', input, ...(GIVEN ? ['--given'] : [])], { cwd: ROOT, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
if (profileDir !== null) {
  for (const file of readdirSync(profileDir).sort()) printTop(join(profileDir, file));
  console.log(`Profiles: ${profileDir}`);
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function of one thread's profile, as a share of its busy (non-idle) time. */
function printTop(path: string): void {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!;
    if (functionName === '(idle)' || functionName === '(program)') return;
    const micros = profile.timeDeltas[i + 1] ?? 0;
    busy += micros;
    const where = url ? `${url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '')}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(name, (self.get(name) ?? 0) + micros);
  });
  // Threads that did almost nothing (the module loader's) are not worth a table.
  if (busy < 500_000) return;
  console.log(`\n${path.split('/').pop()}: ${(busy / 1e6).toFixed(2)} s busy`);
  for (const [name, micros] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`  ${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${name}`);
  }
}
