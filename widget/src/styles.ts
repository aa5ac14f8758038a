/**
 * The widget's one stylesheet. Sizes come from layout-height.ts, so the boxes
 * drawn are the heights the snippet reserved; colours from theme.ts. It is
 * evaluated at build time (widget/build.ts) and reaches the chunks as string
 * constants, in parts, each in the chunk of the layouts that use it (sheet.ts). Class names need no prefix: the shadow root
 * scopes them, and only `.rv` (the root) and `:host` carry meaning outside.
 */
import { BADGE_H, CARD_GAP, CARD_H, HEADER_GAP, HEADER_H, LIST_ROW_H } from './layout-height.ts';
import { ACCENT_MAX_L_LIGHT, ACCENT_MIN_L_DARK, DARK, LIGHT, type Palette } from './theme.ts';

function vars(p: Palette, scheme: string): string {
  return `--bg:${p.bg};--card:${p.card};--fg:${p.fg};--muted:${p.muted};--line:${p.line};--star:${p.star};--star0:${p.starEmpty};--shadow:${p.shadow};color-scheme:${scheme}`;
}

/** The accent (--a, set on the root) brought to AA contrast for each theme. */
const ACCENT_LIGHT = `--accent:oklch(from var(--a) min(l,${ACCENT_MAX_L_LIGHT}) c h)`;
const ACCENT_DARK = `--accent:oklch(from var(--a) max(l,${ACCENT_MIN_L_DARK}) c h)`;

const NOWRAP = 'white-space:nowrap;overflow:hidden;text-overflow:ellipsis';
const ROW = 'display:flex;align-items:center';
// .count takes white-space from .sum: one line with an ellipsis in a wide widget, wrapping in a narrow one (the @container rules).

/** The stylesheet in parts, so that a page downloads only the rules of its layouts. */
export const CSS_PARTS = {
  /** Every layout: the host, the root, the themes, screen-reader text, stars and platform marks. */
  base: `
:host{display:block!important;visibility:visible!important;opacity:1!important;padding:0!important;border:0!important;background:none!important;overflow:visible!important;transform:none!important;filter:none!important;height:auto!important;max-height:none!important;box-sizing:content-box!important;position:static!important}
.rv{all:initial;display:block;position:relative;box-sizing:border-box;overflow:hidden;padding:16px;border:1px solid var(--line);border-radius:16px;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.light,.auto{${vars(LIGHT, 'light')}}
.dark{${vars(DARK, 'dark')}}
@media (prefers-color-scheme:dark){.auto{${vars(DARK, 'dark')}}}
.rv{--accent:var(--a)}
@supports (color:oklch(from red l c h)){.light,.auto{${ACCENT_LIGHT}}.dark{${ACCENT_DARK}}@media (prefers-color-scheme:dark){.auto{${ACCENT_DARK}}}}
:where(.rv *){box-sizing:border-box;margin:0;padding:0;border:0;font:inherit;color:inherit;background:none;list-style:none}
.rv svg{display:block;fill:currentColor}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.stars{display:block;position:relative;flex:none;height:var(--s);width:calc(var(--s)*5);color:var(--star0)}
.fill{position:absolute;inset-block:0;inset-inline-start:0;overflow:hidden;color:var(--star)}
.stars svg{width:calc(var(--s)*5);height:var(--s)}
.mark{${ROW};justify-content:center;flex:none;width:var(--m);height:var(--m);border-radius:6px;color:#fff;font:700 calc(var(--m)*.55)/1 system-ui,sans-serif}
`,
  /** The badge. */
  badge: `
.badge{${ROW};gap:14px;width:fit-content;max-width:100%;height:${BADGE_H}px;padding:12px 18px 12px 16px;box-shadow:var(--shadow)}
.score{font-size:36px;line-height:40px;font-weight:700}
.badge-col{display:flex;flex-direction:column;gap:4px}
.badge-count{font-size:13px;line-height:18px;color:var(--muted);white-space:nowrap}
.marks{display:flex;gap:4px}
`,
  /** The framed layouts (carousel, grid, list): heading row, buttons, cards, the track, the cells and rows, the dialog. */
  framed: `
.rv{container-type:inline-size}
.rv .line{fill:none;stroke:currentColor;stroke-width:2.2;stroke-linecap:round;stroke-linejoin:round}
.rv :focus-visible{outline:2px solid var(--accent);outline-offset:2px;border-radius:4px}
.head{${ROW};gap:12px;height:${HEADER_H}px;margin-bottom:${HEADER_GAP}px}
.head-text{flex:1;min-width:0}
.title{font-size:17px;line-height:24px;font-weight:650;${NOWRAP}}
.sum{${ROW};gap:6px;height:20px;margin-top:2px;font-size:13px;color:var(--muted);white-space:nowrap}
.count{min-width:0;overflow:hidden;text-overflow:ellipsis}
.sum b{color:var(--fg);font-weight:650}
.nav{${ROW};gap:8px}
.btn{${ROW};justify-content:center;flex:none;width:36px;height:36px;border:1px solid var(--line);border-radius:50%!important;background:var(--card);color:var(--accent);box-shadow:var(--shadow);cursor:pointer}
.btn:hover{background:color-mix(in srgb,var(--accent) 10%,var(--card))}
.btn[aria-disabled=true]{opacity:.4;cursor:default;background:var(--card)}
.btn svg{width:20px;height:20px}
.card{display:flex;flex-direction:column;gap:8px;height:100%;padding:16px;overflow:hidden;background:var(--card);border:1px solid var(--line);border-radius:12px;box-shadow:var(--shadow)}
.card-head{${ROW};gap:10px;height:40px;flex:none}
.who{flex:1;min-width:0}
.name{${ROW};gap:4px;font-weight:600;line-height:20px}
.name-text{${NOWRAP}}
.verified{flex:none;color:var(--accent)}
.verified svg{width:15px;height:15px}
.date{display:block;font-size:12.5px;line-height:18px;color:var(--muted);${NOWRAP}}
.avatar{position:relative;${ROW};justify-content:center;flex:none;width:40px;height:40px;border-radius:50%;overflow:hidden;color:#fff;font-size:15px;font-weight:600}
.avatar img{position:absolute;inset:0;width:100%;height:100%;object-fit:cover}
.stars-row{${ROW};gap:8px;height:16px;flex:none;font-size:13px}
.text{display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:4;height:80px;flex:none;overflow:hidden;line-height:20px;white-space:pre-line;overflow-wrap:anywhere}
.foot{${ROW};gap:8px;height:20px;margin-top:auto;flex:none;font-size:13px}
.more{visibility:hidden;flex:none;white-space:nowrap;color:var(--accent);font-weight:600;cursor:pointer}
[data-cut] .more{visibility:visible}
.link{color:var(--accent);font-weight:500;text-decoration:none;margin-inline-start:auto;min-width:0;${NOWRAP}}
.more:hover,.link:hover{text-decoration:underline}
.empty{${ROW};justify-content:center;height:calc(100% - ${HEADER_H + HEADER_GAP}px);color:var(--muted)}
.dialog{margin:auto;width:min(560px,calc(100vw - 32px));max-height:80vh;padding:24px;overflow:auto;border:1px solid var(--line);border-radius:16px;background:var(--card);box-shadow:0 24px 60px #0006}
.dialog::backdrop{background:#020617a0}
.dialog .card-head{padding-inline-end:40px}
.full{margin:16px 0;font-size:15px;line-height:24px;white-space:pre-line;overflow-wrap:anywhere}
.close{position:absolute;top:12px;inset-inline-end:12px;box-shadow:none}
[dir=rtl] .nav .line{transform:scaleX(-1)}
@container (max-width:420px){.head{display:grid;grid:32px 26px/1fr auto;gap:0 8px;height:${HEADER_H + 10}px;margin-bottom:${HEADER_GAP - 10}px}.head-text{display:contents}.title{font-size:14px;line-height:16px;white-space:normal}.nav{grid-area:1/2;gap:4px}.btn{width:32px;height:32px}.sum{grid-column:1/3;display:block;height:26px;font-size:12px;line-height:13px;white-space:normal}.sum>*{margin:0 2px}.sum .stars{display:inline-block;vertical-align:top;zoom:.8}}
.track{display:flex;gap:${CARD_GAP}px;height:${CARD_H}px;padding:1px;margin:0 -1px;overflow:auto hidden;scroll-snap-type:x mandatory;scroll-behavior:smooth;scrollbar-width:none;overscroll-behavior-x:contain}
.slide{flex:0 0 calc((100% - (var(--cols) - 1)*${CARD_GAP}px)/var(--cols));min-width:0;scroll-snap-align:start;content-visibility:auto}
@media (prefers-reduced-motion:reduce){.track{scroll-behavior:auto}}
.page{font-size:13px;color:var(--muted);font-variant-numeric:tabular-nums;white-space:nowrap}
.cells{display:grid;grid-template-columns:repeat(var(--cols),minmax(0,1fr));grid-auto-rows:${CARD_H}px;gap:${CARD_GAP}px}
.row{display:flex;flex-direction:column;gap:6px;height:${LIST_ROW_H}px;padding:14px 2px;border-bottom:1px solid var(--line)}
.rows li:last-child .row{border-color:transparent}
.row .stars-row{gap:14px}
.row .text{height:40px;-webkit-line-clamp:2}
`,
  /**
   * The replies (reply.ts): in the browser in the replies' chunk, adopted with the framed part
   * by a widget whose data carries a reply; the server writes it with the framed part.
   */
  reply: `
.rb{flex:none;max-width:55%;margin-inline-start:auto;color:var(--accent);font-weight:600;cursor:pointer;${NOWRAP}}
.reply{border-inline-start:3px solid var(--accent);padding-inline-start:8px}
.text[hidden]{display:none}
.reply b{font-weight:650}
.card .rb{max-width:none;flex:0 1 auto;min-width:0}
`,
} as const;

export type CssPart = keyof typeof CSS_PARTS;

/** The parts a layout needs, in cascade order (later parts override earlier ones). */
export function cssPartsOf(layout: string): CssPart[] {
  return layout === 'badge' ? ['base', 'badge'] : ['base', 'framed', 'reply'];
}

/** One layout's whole stylesheet, as the server inlines it into a rendered widget. */
export const cssOf = (layout: string): string => cssPartsOf(layout).map((part) => CSS_PARTS[part]).join('');

/** Every rule of every layout. */
export const CSS = Object.values(CSS_PARTS).join('');
