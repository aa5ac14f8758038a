/** Child process for the kill -9 test: appends forever, printing each acknowledged sequence number. */
import { DurableLog } from '../durable-log.ts';

const path = process.argv[2]!;
const { log } = await DurableLog.open(path, () => undefined);
let seq = 0;
for (;;) {
  const batch = [seq, seq + 1, seq + 2].map((s) => ({ seq: s, pad: 'x'.repeat(200 + (s % 50)) }));
  await log.append(...batch);
  for (const entry of batch) process.stdout.write(`${entry.seq}\n`);
  seq += 3;
}
