/** Stylesheets are bundled by esbuild (dashboard/build.ts) into their own hashed file. */
declare module '*.css';
