import { resources } from './api/intelligence/languages.ts';
import { fold } from './api/intelligence/text.ts';
import { topicStems } from './api/intelligence/themes.ts';
const [lang, text] = [process.argv[2] as 'en', process.argv[3]!];
const r = resources(lang); const t = topicStems(lang);
for (const m of fold(text).matchAll(/\p{L}+/gu)) { const w = m[0]; const s = r.stem(w); console.log(w, s, t.has(s) ? 'TOPIC' : '', r.afinn.get(w), r.afinnStems.get(s), r.lexicon.get(s)); }
