import { readFileSync } from 'node:fs';
const m = JSON.parse(readFileSync('/tmp/wt12x/meta.json', 'utf8'));
for (const [o, v] of Object.entries<any>(m.outputs)) {
  console.log('==', o, v.bytes, JSON.stringify(v.imports));
  for (const [k, i] of Object.entries<any>(v.inputs).sort((a: any, b: any) => b[1].bytesInOutput - a[1].bytesInOutput)) console.log('   ', String(i.bytesInOutput).padStart(6), k);
}
