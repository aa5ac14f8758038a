import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableLog, LogCorruptError } from './durable-log.ts';

const dirs: string[] = [];
function tempLog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'durable-log-'));
  dirs.push(dir);
  return join(dir, 'store.log');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function replay(path: string): Promise<{ entries: unknown[]; dropped: number }> {
  const entries: unknown[] = [];
  const { log, replay } = await DurableLog.open(path, (e) => entries.push(e));
  await log.close();
  return { entries, dropped: replay.droppedBytes };
}

describe('DurableLog', () => {
  it('replays what was appended, in order, across reopen', async () => {
    const path = tempLog();
    const { log } = await DurableLog.open(path, () => undefined);
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append({ i, text: `é ${i} \u2028 "quoted"` })));
    await log.append({ i: 50 }, { i: 51 });
    await log.close();
    const { entries, dropped } = await replay(path);
    expect(dropped).toBe(0);
    expect(entries.map((e) => (e as { i: number }).i)).toEqual(Array.from({ length: 52 }, (_, i) => i));
    expect((entries[3] as { text: string }).text).toBe('é 3 \u2028 "quoted"');
  });

  it('drops a torn last line (no newline) and keeps working after it', async () => {
    const path = tempLog();
    const { log } = await DurableLog.open(path, () => undefined);
    await log.append({ a: 1 });
    await log.append({ a: 2 });
    await log.close();
    const goodSize = statSync(path).size;
    const torn = '1234abcd {"a":3, "trunc';
    appendFileSync(path, torn);
    const first = await replay(path);
    expect(first.entries).toEqual([{ a: 1 }, { a: 2 }]);
    expect(first.dropped).toBe(torn.length);
    expect(statSync(path).size).toBe(goodSize);
    const { log: again } = await DurableLog.open(path, () => undefined);
    await again.append({ a: 4 });
    await again.close();
    expect((await replay(path)).entries).toEqual([{ a: 1 }, { a: 2 }, { a: 4 }]);
  });

  it('drops a last line whose checksum does not match (a torn write that happened to end in a newline)', async () => {
    const path = tempLog();
    const { log } = await DurableLog.open(path, () => undefined);
    await log.append({ a: 1 });
    await log.close();
    const line = readFileSync(path, 'utf8');
    appendFileSync(path, line.replace('"a":1', '"a":9'));
    const { entries, dropped } = await replay(path);
    expect(entries).toEqual([{ a: 1 }]);
    expect(dropped).toBe(line.length);
  });

  it('refuses to open when a corrupt line is followed by intact ones (damage, not a torn write)', async () => {
    const path = tempLog();
    const { log } = await DurableLog.open(path, () => undefined);
    await log.append({ a: 1 }, { a: 2 }, { a: 3 });
    await log.close();
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace('"a":2', '"a":7'));
    await expect(DurableLog.open(path, () => undefined)).rejects.toBeInstanceOf(LogCorruptError);
  });

  it('keeps every acknowledged append when the writer is killed with SIGKILL mid-stream', async () => {
    const path = tempLog();
    const writer = join(import.meta.dirname, 'testing', 'log-writer.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', writer, path], { stdio: ['ignore', 'pipe', 'inherit'] });
    let acked = -1;
    let buffer = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        for (const line of lines) if (line) acked = Math.max(acked, Number(line));
        if (acked >= 300) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((r) => child.once('exit', r));
    const { entries } = await replay(path);
    const seqs = new Set(entries.map((e) => (e as { seq: number }).seq));
    for (let i = 0; i <= acked; i++) expect(seqs.has(i), `acknowledged entry ${i} survived`).toBe(true);
    // Nothing but whole entries: the sequence is gap-free from 0.
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: seqs.size }, (_, i) => i));
  }, 60_000);
});
