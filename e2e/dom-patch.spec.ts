/**
 * The widget's browser renderer (widget/src/dom-patch.ts, in place of Preact
 * for the framed layouts) on its own, in Chromium: what its header comment
 * promises. Hydration keeps server nodes; a re-render keeps nodes and focus;
 * changed attributes and handlers are replaced and removed ones removed;
 * setState calls in one turn make one render; keyed instances keep their
 * state; `render(null)` unmounts.
 */
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'widget', 'src');

interface Dp {
  render: (tree: unknown, parent: Node) => void;
  Component: new (props: Record<string, unknown>) => { props: Record<string, unknown>; state: Record<string, unknown>; setState: (s: Record<string, unknown>) => void };
  h: (type: unknown, props: Record<string, unknown> | null, ...children: unknown[]) => unknown;
}

test.beforeEach(async ({ page }) => {
  const { outputFiles } = await build({
    stdin: {
      contents: "import { render, Component } from './dom-patch.ts'; import { h } from './jsx-inject.ts'; (window as any).dp = { render, Component, h };",
      resolveDir: SRC,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    logLevel: 'silent',
  });
  await page.setContent('<!doctype html><html lang="en"><body><div id="root"></div></body></html>');
  await page.addScriptTag({ content: outputFiles[0]!.text });
});

test('hydrates server-rendered markup in place: the same nodes, nothing added or removed', async ({ page }) => {
  const result = await page.evaluate(() => {
    const { render, h } = (window as unknown as { dp: Dp }).dp;
    const root = document.getElementById('root')!;
    root.innerHTML = '<ul class="list"><li aria-current="true">One</li><li>Two <b>bold</b></li></ul><p hidden="">x</p>';
    const before = [...root.querySelectorAll('*')];
    render([h('ul', { class: 'list' }, h('li', { 'aria-current': true }, 'One'), h('li', null, 'Two ', h('b', null, 'bold'))), h('p', { hidden: true }, 'x')], root);
    const after = [...root.querySelectorAll('*')];
    return { same: before.length === after.length && before.every((el, i) => el === after[i]), html: root.innerHTML };
  });
  expect(result.same).toBe(true);
  expect(result.html).toBe('<ul class="list"><li aria-current="true">One</li><li>Two <b>bold</b></li></ul><p hidden="">x</p>');
});

test('replaces changed attributes and handlers, removes the ones gone, keeps the node and its focus', async ({ page }) => {
  const result = await page.evaluate(() => {
    const { render, h } = (window as unknown as { dp: Dp }).dp;
    const root = document.getElementById('root')!;
    const calls: string[] = [];
    render(h('button', { type: 'button', title: 'first', 'aria-pressed': false, onClick: () => calls.push('one') }, 'Go'), root);
    const button = root.querySelector('button')!;
    button.focus();
    button.click();
    render(h('button', { type: 'button', 'aria-pressed': true, onClick: () => calls.push('two') }, 'Went'), root);
    button.click();
    render(h('button', { type: 'button', 'aria-pressed': true }, 'Went'), root);
    button.click();
    return { same: root.querySelector('button') === button, focused: document.activeElement === button, calls, html: root.innerHTML };
  });
  expect(result).toEqual({ same: true, focused: true, calls: ['one', 'two'], html: '<button type="button" aria-pressed="true">Went</button>' });
});

test('setState calls in one turn make one render; keyed instances keep their state; render(null) unmounts', async ({ page }) => {
  const result = await page.evaluate(async () => {
    const { render, h, Component } = (window as unknown as { dp: Dp }).dp;
    const root = document.getElementById('root')!;
    const log: string[] = [];
    class Counter extends Component {
      override state = { n: 0 };
      render(props: { id: string }, state: { n: number }) {
        log.push(`render ${props.id}`);
        return h('button', { type: 'button', onClick: () => (this.setState({ n: state.n + 1 }), this.setState({ n: state.n + 2 })) }, `${props.id}:${state.n}`);
      }
      componentWillUnmount() {
        log.push(`unmount ${(this.props as { id: string }).id}`);
      }
    }
    const list = (ids: string[]) => h('div', null, ...ids.map((id) => h(Counter, { key: id, id })));
    render(list(['a', 'b', 'c']), root);
    log.length = 0;
    root.querySelectorAll('button')[2]!.click();
    await new Promise((resolve) => setTimeout(resolve));
    const afterClick = { text: root.textContent, renders: log.filter((l) => l.startsWith('render')).length };
    log.length = 0;
    render(list(['a', 'c']), root);
    const afterRemove = { text: root.textContent, log: [...log] };
    render(null, root);
    return { afterClick, afterRemove, unmounted: log.filter((l) => l.startsWith('unmount')).sort(), empty: root.childNodes.length };
  });
  // Both setState calls in one handler: one render of the whole widget (three counters), state merged in order.
  expect(result.afterClick).toEqual({ text: 'a:0b:0c:2', renders: 3 });
  // "b" removed: its instance unmounted, "c" keeps its state under its key.
  expect(result.afterRemove.text).toBe('a:0c:2');
  expect(result.afterRemove.log).toContain('unmount b');
  expect(result.unmounted).toEqual(['unmount a', 'unmount b', 'unmount c']);
  expect(result.empty).toBe(0);
});
