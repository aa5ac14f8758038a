/** The part of fs-native-extensions (which ships no types) that data-dir-lock.ts uses. */
declare module 'fs-native-extensions' {
  /** An exclusive (or shared) lock on the whole file; false when another holder has it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  export function unlock(fd: number): void;
}
