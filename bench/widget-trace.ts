/**
 * npm run bench:widget:trace: where a widget's main-thread time goes. Loads
 * the Lighthouse benchmark's host page (bench/widget.ts) with one layout in
 * Debian's Chromium at Lighthouse's mobile CPU slowdown (4x) and viewport,
 * records a Chrome trace, and prints every main-thread task of 20 ms or more
 * as a tree of what ran inside it (script evaluation, function calls by
 * script, style, layout, paint), with the blocking time (each task's time
 * beyond 50 ms) of the whole load. The trace is kept for DevTools.
 *
 *   npm run bench:widget:trace -- [--layout carousel] [--runs 3]
 */
import { chromium } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { allFixtures } from '../e2e/support/fixtures.ts';
import { startWidgetOrigin } from '../e2e/support/servers.ts';
import { snippetFor } from '../widget/src/snippet.ts';
import { ROOT, flag } from './support.ts';

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  cat?: string;
  id?: string;
  args?: { name?: string; data?: { url?: string; functionName?: string; stackTrace?: { url?: string; functionName?: string }[] } };
}

interface Node {
  event: TraceEvent;
  children: Node[];
}

interface Profile {
  startTime: number;
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Sampled self time per function, largest first: the widget's scripts and
 * the engine's own entries ((garbage collector)…), within [from, to] (µs, the
 * trace's clock) when given.
 */
function selfTimes(profile: Profile, from = -Infinity, to = Infinity): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const times = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from || at > to) return;
    const frame = byId.get(id)!;
    const file = frame.url.split('/').pop() ?? '';
    if (frame.url && !/widget|loader/.test(file)) return;
    if (!frame.url && !frame.functionName.startsWith('(')) return;
    if (frame.functionName === '(idle)') return;
    const where = frame.url ? `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}:${frame.columnNumber + 1}` : frame.functionName;
    times.set(where, (times.get(where) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  });
  return [...times].sort((a, b) => b[1] - a[1]);
}

const TASK = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);
const layoutArg = process.argv.indexOf('--layout');
const layout = layoutArg === -1 ? 'carousel' : process.argv[layoutArg + 1]!;

/** What an event ran, for the printout: its name and, for script, the file. */
function label(event: TraceEvent): string {
  const data = event.args?.data;
  const url = data?.url || data?.stackTrace?.[0]?.url || '';
  const file = url ? ` ${url.split('/').pop()}` : '';
  const fn = data?.functionName ? ` ${data.functionName}()` : '';
  return `${event.name}${file}${fn}`;
}

function print(node: Node, depth: number, lines: string[]): void {
  const ms = (node.event.dur ?? 0) / 1000;
  if (depth > 0 && ms < 2) return;
  lines.push(`${'  '.repeat(depth)}${ms.toFixed(1).padStart(7)} ms  ${label(node.event)}`);
  if (depth < 5) for (const child of node.children) print(child, depth + 1, lines);
}

async function main(): Promise<void> {
  const runs = flag('runs', 1);
  const id = `wdg_four_${layout}`;
  const fixtures = Object.fromEntries(
    Object.entries(allFixtures()).map(([key, data]) => [key, { ...data, reviews: data.reviews.map((r) => ({ ...r, authorAvatar: null })) }]),
  );
  if (!fixtures[id]) throw new Error(`no fixture ${id}: --layout carousel|grid|list|badge`);
  const widget = await startWidgetOrigin({ fixtures });
  const html = readFileSync(join(ROOT, 'bench', 'host-page.html'), 'utf8').replace('{{BENCH}}', snippetFor({ origin: widget.origin, widgetId: id, height: fixtures[id]!.height }));
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://localhost:${typeof address === 'object' && address ? address.port : 0}/`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  try {
    for (let run = 1; run <= runs; run++) {
      // Lighthouse's mobile settings: a Moto G Power's screen, 4x CPU slowdown; a fresh context (cold caches) each run.
      const context = await browser.newContext({ viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, ignoreHTTPSErrors: true });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
      await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'v8.execute', 'blink.user_timing'] });
      await page.goto(url, { waitUntil: 'networkidle' });
      await page.waitForFunction((sel) => !!document.querySelector(sel)?.shadowRoot?.querySelector('.rv'), `[data-rv-widget="${id}"]`);
      await page.waitForTimeout(1500);
      const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
      const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
      const file = join(ROOT, 'test-results', `widget-trace-${layout}-${run}.json`);
      writeFileSync(file, JSON.stringify(trace));
      await context.close();

      // The page's main thread: the renderer thread that ran the host page's HTML parse.
      const events = trace.traceEvents;
      const mains = new Set(events.filter((e) => e.ph === 'M' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
      const parsed = events.find((e) => e.name === 'ParseHTML' && mains.has(`${e.pid}:${e.tid}`) && (e.args?.data as { url?: string } | undefined)?.url === url)
        ?? events.find((e) => e.name === 'ParseHTML' && mains.has(`${e.pid}:${e.tid}`));
      if (!parsed) throw new Error('no HTML parse on a renderer main thread in the trace');
      const onMain = events
        .filter((e) => e.ph === 'X' && e.pid === parsed.pid && e.tid === parsed.tid && e.dur !== undefined)
        .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
      // Nest the complete events by time into trees, one per top-level task.
      const roots: Node[] = [];
      const stack: Node[] = [];
      for (const event of onMain) {
        while (stack.length && stack.at(-1)!.event.ts + (stack.at(-1)!.event.dur ?? 0) <= event.ts) stack.pop();
        const node = { event, children: [] };
        if (stack.length) stack.at(-1)!.children.push(node);
        else roots.push(node);
        stack.push(node);
      }
      const tasks = roots.filter((n) => TASK.has(n.event.name));
      const blocking = tasks.reduce((sum, n) => sum + Math.max(0, (n.event.dur ?? 0) / 1000 - 50), 0);
      const longest = Math.max(0, ...tasks.map((n) => (n.event.dur ?? 0) / 1000));
      console.log(`run ${run}: ${layout}, ${tasks.length} tasks, longest ${longest.toFixed(1)} ms, blocking ${blocking.toFixed(1)} ms (whole load, 4x CPU); trace ${file}`);
      const lines: string[] = [];
      for (const task of tasks.filter((n) => (n.event.dur ?? 0) >= 20_000)) {
        print(task, 0, lines);
        if ((task.event.dur ?? 0) < 40_000) continue;
        const inside = selfTimes(profile, task.event.ts, task.event.ts + (task.event.dur ?? 0)).slice(0, 6);
        if (inside.length) lines.push(`          JavaScript: ${inside.map(([where, ms]) => `${where} ${ms.toFixed(1)}`).join('; ')}`);
      }
      console.log(lines.join('\n'));
      // performance.measure() calls, if a build adds some while looking into a task.
      for (const begin of events.filter((e) => e.pid === parsed.pid && e.ph === 'b' && e.cat === 'blink.user_timing')) {
        const end = events.find((e) => e.ph === 'e' && e.name === begin.name && e.pid === begin.pid && e.id === begin.id);
        if (end) console.log(`measure ${begin.name}: ${((end.ts - begin.ts) / 1000).toFixed(1)} ms`);
      }
      console.log('JavaScript self time by function (sampled; widget scripts and the engine):');
      for (const [where, ms] of selfTimes(profile).slice(0, 25)) console.log(`${ms.toFixed(1).padStart(7)} ms  ${where}`);
    }
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
    await widget.close();
  }
}

await main();
