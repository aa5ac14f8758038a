/**
 * Build-only: the bundle compiles JSX to classic `h(type, props, ...children)`
 * calls, which minify smaller than the automatic runtime's `children:` objects.
 * esbuild injects these imports wherever JSX appears (widget/build.ts).
 */
export { h, Fragment } from 'preact';
