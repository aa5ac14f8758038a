import { readFileSync, readdirSync } from 'node:fs';
import { scoreSentiment } from './api/intelligence/sentiment.ts';
import { plainText } from './api/intelligence/text.ts';
const dir = 'bench/intelligence/eval';
const rows = readdirSync(dir).flatMap(f => readFileSync(`${dir}/${f}`, 'utf8').trim().split('\n').map(l => JSON.parse(l)));
const L: Record<string,string> = {P:'POSITIVE',N:'NEGATIVE',U:'NEUTRAL'};
const per: Record<string, [number, number, number]> = {};
for (const r of rows) { const res = scoreSentiment(plainText(r.t), r.l, (process.argv[3] ?? "afinn+nlpjs") as any); if (!res) continue; const p = (per[r.l] ??= [0,0,0]); p[0]++; if (res.label === L[r.s]) p[1]++; else { if (res.label !== 'NEUTRAL' && L[r.s] !== 'NEUTRAL') p[2]++; if (process.argv[2]===r.l || process.argv[2]==='all') console.log(r.s, res.label, res.sentiment, r.t); } }
for (const [l, [n, ok, pn]] of Object.entries(per)) console.log(l, (ok/n*100).toFixed(1), 'PN', (pn/n*100).toFixed(1));
