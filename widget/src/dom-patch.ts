/**
 * The framed layouts' renderer in the browser (1.1 KB gzip), in place of
 * Preact's (4.4 KiB): widget/build.ts aliases `preact` to this file for the
 * chunks, so framed.tsx, carousel.tsx and paged.tsx keep extending Preact's
 * `Component` in their source, and the server still renders them with
 * preact-render-to-string (CONTRACT §8).
 *
 * It knows what those components use and nothing more: function and class
 * components (`props`, `state`, `setState` with an object, `base`,
 * componentDidMount / componentDidUpdate(previousProps, previousState) /
 * componentWillUnmount), `createRef`, object and function refs, `on…`
 * event props, style objects keyed by CSS property names, and attributes
 * set the way Preact and preact-render-to-string write them (aria-*
 * booleans as "true"/"false", other booleans present or absent).
 *
 * Every render patches the DOM already there, child by child in order: a
 * node of the same kind is kept and updated, anything else is inserted, and
 * what is left over is removed. So the first render over server-rendered
 * markup keeps its nodes (hydration), and a re-render keeps the focused
 * button. Adjacent text children become one text node, as they do in
 * server-rendered HTML. Class instances are matched by their place in the
 * tree (index, or `key` in lists), and any `setState` re-renders the whole
 * widget in one microtask: a widget is a few hundred nodes.
 *
 * Left out on purpose, because the widget's components never need them and
 * every byte here counts against the 11 KiB page budget: a style value of
 * null is not removed (styles here are always strings), a ref is not reset
 * to null when its element goes (every ref'd element is always rendered), a
 * `setState` in a constructor is ignored (use the state initialiser), and
 * keyed children keep their DOM nodes by position (lists here never reorder).
 */

type Props = Record<string, unknown>;

/** What jsx-inject.ts's `h` makes. */
interface Element {
  type: string | ((props: Props) => unknown) | (new (props: Props) => Component);
  props: Props;
}

/** An element with its components expanded: only tags and text are left. */
interface Tag {
  type: string;
  props: Props;
  kids: Item[];
  /** The class components whose first node this is (their `base`). */
  owners?: Component[];
}
type Item = string | Tag;

/** What a widget's parent node (its shadow root) holds: the tree, its instances by place, whether a render is queued. */
type Root = Node & { _tree?: unknown; _instances?: Map<string, Component>; _queued?: boolean };

/** Nodes this renderer drew: the props they were given and their event handlers. */
type Drawn = globalThis.Element & { _p?: Props; _l?: Record<string, (event: Event) => void> };

export const createRef = <T>(): { current: T | null } => ({ current: null });

export class Component<P = Props, S = Props> {
  props: P;
  state = {} as S;
  declare base?: globalThis.Element;
  /** Where it is drawn, until it is unmounted. */
  declare _root?: Root;
  /** The state of the next render. */
  declare _next?: S;

  declare render: (props: P, state: S) => unknown;
  declare componentDidMount?: () => void;
  declare componentDidUpdate?: (previousProps: P, previousState: S) => void;
  declare componentWillUnmount?: () => void;

  constructor(props: P) {
    this.props = props;
  }

  setState(update: Partial<S>): void {
    this._next = { ...(this._next ?? this.state), ...update };
    const root = this._root;
    if (root && !root._queued) {
      root._queued = true;
      queueMicrotask(() => {
        root._queued = false;
        if (root._tree != null) draw(root);
      });
    }
  }
}

/** Renders `tree` into `parent`, over what is there (server-rendered markup or a previous render); `null` unmounts. */
export function render(tree: unknown, parent: Node): void {
  (parent as Root)._tree = tree;
  draw(parent);
}

/** The pass being drawn (draws never nest: setState only queues one): instances met, lifecycle calls to make. */
let drawing: Root;
let seen: Map<string, Component>;
let after: (() => void)[];

/** Expand the components, patch the DOM, then call the lifecycle methods, children's first. */
function draw(root: Root): void {
  const old = root._instances ?? new Map<string, Component>();
  const items: Item[] = [];
  drawing = root;
  seen = new Map();
  after = [];
  expand(root._tree, '', items, old);
  old.forEach((instance, path) => {
    if (seen.get(path) !== instance) {
      instance.componentWillUnmount?.();
      instance._root = undefined;
    }
  });
  root._instances = seen;
  patch(root, items, false);
  after.forEach((call) => call());
}

function expand(node: unknown, path: string, out: Item[], old: Map<string, Component>): void {
  if (node == null || typeof node === 'boolean' || node === '') return;
  if (typeof node !== 'object') {
    const last = out.length - 1;
    if (typeof out[last] === 'string') out[last] += String(node);
    else out.push(String(node));
    return;
  }
  if (Array.isArray(node)) {
    node.forEach((child: Element | undefined, i) => expand(child, `${path}/${child?.props?.key ?? i}`, out, old));
    return;
  }
  const { type, props } = node as Element;
  if (typeof type === 'string') {
    const kids: Item[] = [];
    expand(props.children, `${path}>`, kids, old);
    out.push({ type, props, kids });
  } else if (!type.prototype?.render) {
    expand((type as (props: Props) => unknown)(props), `${path}()`, out, old);
  } else {
    let instance = old.get(path);
    let lifecycle: () => void;
    if (instance?.constructor === type) {
      const [previousProps, previousState, updated] = [instance.props, instance.state, instance];
      lifecycle = () => updated.componentDidUpdate?.(previousProps, previousState);
      instance.props = props;
      instance.state = instance._next ?? instance.state;
    } else {
      const mounted = (instance = new (type as new (props: Props) => Component)(props));
      instance._root = drawing;
      lifecycle = () => mounted.componentDidMount?.();
    }
    instance._next = undefined;
    seen.set(path, instance);
    const first = out.length;
    expand(instance.render(instance.props, instance.state), `${path}()`, out, old);
    after.push(lifecycle);
    const base = out.slice(first).find((item): item is Tag => typeof item !== 'string');
    if (base) (base.owners ??= []).push(instance);
  }
}

const SVG_NS = 'http://www.w3.org/2000/svg';

function patch(parent: Node, items: Item[], svg: boolean): void {
  let node = parent.firstChild;
  for (const item of items) {
    let kept: Node;
    if (typeof item === 'string') {
      if (node instanceof Text) {
        if (node.data !== item) node.data = item;
        kept = node;
      } else kept = parent.insertBefore(document.createTextNode(item), node);
    } else {
      const inSvg = svg || item.type === 'svg';
      let el = node as Drawn | null;
      if (el?.localName !== item.type) el = parent.insertBefore(inSvg ? document.createElementNS(SVG_NS, item.type) : document.createElement(item.type), node);
      setProps(el, item.props);
      patch(el, item.kids, inSvg);
      for (const owner of item.owners ?? []) owner.base = el;
      kept = el;
    }
    node = kept.nextSibling;
  }
  while (node) {
    const next = node.nextSibling;
    parent.removeChild(node);
    node = next;
  }
}

/** Calls the element's handler for the event (one listener per event type, whatever the handler). */
function listener(this: Drawn, event: Event): void {
  this._l?.[event.type]?.(event);
}

/**
 * Sets what changed since the element's last render; over server-rendered
 * markup (no last render) everything is set and nothing removed.
 */
function setProps(el: Drawn, props: Props): void {
  const old = el._p ?? {};
  for (const name in old) if (!(name in props)) setProp(el, name, null, old[name]);
  for (const name in props) if (props[name] !== old[name]) setProp(el, name, props[name], old[name]);
  el._p = props;
}

function setProp(el: Drawn, name: string, value: unknown, old: unknown): void {
  if (name === 'children' || name === 'key') return;
  if (name === 'ref') {
    if (typeof value === 'function') value(el);
    else if (value) (value as { current: unknown }).current = el;
  } else if (name === 'style') {
    const style = (el as unknown as HTMLElement).style;
    const next = (value ?? {}) as Record<string, string>;
    for (const key in old as Props) if (!(key in next)) style.removeProperty(key);
    for (const key in next) style.setProperty(key, String(next[key]));
  } else if (name.startsWith('on')) {
    const type = name.slice(2).toLowerCase();
    el._l ??= {};
    if (!(type in el._l)) el.addEventListener(type, listener);
    el._l[type] = value as (event: Event) => void;
  } else if (value == null || (value === false && name[4] !== '-')) {
    el.removeAttribute(name);
  } else {
    // aria-* keeps "true"/"false"; other booleans are present (inert, hidden) or absent.
    const text = value === true && name[4] !== '-' ? '' : String(value);
    // Only a change is written: setting an <img>'s src again, even to the same URL, would load it again.
    if (el.getAttribute(name) !== text) el.setAttribute(name, text);
  }
}
