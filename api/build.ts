/**
 * The production build: bundles the service (`api/main.ts`) into one ES module,
 * `dist/api/main.js`, that `npm start` runs with plain `node` (no transpiling
 * at run time). node_modules stay external (`packages: 'external'`): native and
 * prebuilt packages load from node_modules as they are.
 *
 * Paths computed from `import.meta.url` (the widget's `widget/dist/`, the
 * dashboard's sources, which the service builds at start) must name the same
 * files in the bundle as in the sources: each bundled module's `import.meta.url`
 * is replaced by its source file's URL. dist/ is built on the machine that runs
 * it (`npm start` builds first), so these absolute paths are that machine's.
 *
 *   npx tsx api/build.ts [--quiet]
 */
import { build, type Plugin } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
export const DIST_MAIN = join(ROOT, 'dist', 'api', 'main.js');
const DIST_ENRICH_WORKER = join(ROOT, 'dist', 'api', 'enrich-worker.js');
const DIST_DELIVERY_WORKER = join(ROOT, 'dist', 'api', 'delivery-worker.js');

/** The worker threads' compiled files, built before the service, which learns their URLs through defines. */
async function buildWorkers(): Promise<Record<string, string>> {
  await buildOne(join(ROOT, 'api', 'intelligence', 'enrich-worker.ts'), DIST_ENRICH_WORKER, {});
  await buildOne(join(ROOT, 'api', 'webhooks', 'delivery-worker.ts'), DIST_DELIVERY_WORKER, {});
  return {
    __RV_ENRICH_WORKER__: JSON.stringify(pathToFileURL(DIST_ENRICH_WORKER).href),
    __RV_DELIVERY_WORKER__: JSON.stringify(pathToFileURL(DIST_DELIVERY_WORKER).href),
  };
}

/** `import.meta.url` in each module = its source file's URL, as when run from the sources. */
const sourceImportMetaUrl: Plugin = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.tsx?$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

/**
 * Builds and returns the file to run (and the worker threads' files beside it). Each output is written aside and renamed
 * into place, so a process starting while another build runs (tests, the
 * benchmark) never reads half a file.
 */
export async function buildApi(): Promise<string> {
  // The worker threads first (each its own file: a worker thread runs a module
  // of its own), then the service, which learns their compiled files through
  // defines (pool.ts and delivery-thread.ts run them instead of the sources under tsx).
  await buildOne(join(ROOT, 'api', 'main.ts'), DIST_MAIN, await buildWorkers());
  return DIST_MAIN;
}

/**
 * Another entry point bundled as the service is (benchmarks that must run the
 * service's code as `npm start` runs it: compiled, with the compiled
 * worker threads); returns the file to run.
 */
export async function buildLikeService(entry: string, outfile: string): Promise<string> {
  await buildOne(entry, outfile, await buildWorkers());
  return outfile;
}

async function buildOne(entry: string, outfile: string, define: Record<string, string>): Promise<void> {
  const result = await build({
    entryPoints: [entry],
    outfile,
    define,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node24',
    sourcemap: 'linked',
    logLevel: 'warning',
    write: false,
    plugins: [sourceImportMetaUrl],
  });
  mkdirSync(dirname(outfile), { recursive: true });
  for (const file of result.outputFiles) {
    const aside = `${file.path}.${process.pid}.tmp`;
    writeFileSync(aside, file.contents);
    renameSync(aside, file.path);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const out = await buildApi();
  if (!process.argv.includes('--quiet')) console.log(`api build: ${out} in ${Date.now() - started} ms`);
}
