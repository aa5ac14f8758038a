import { chromium } from '@playwright/test';
import { readFileSync } from 'node:fs';
const [file, y, h, out] = process.argv.slice(2);
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const p = await b.newPage({ viewport: { width: 390, height: Number(h) } });
await p.setContent(`<body style="margin:0"><img style="display:block;margin-top:-${y}px" src="data:image/png;base64,${readFileSync(file!).toString('base64')}">`);
await p.screenshot({ path: out!, clip: { x: 0, y: 0, width: 390, height: Number(h) } });
await b.close();
