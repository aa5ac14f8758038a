/** A picture for the docs (docs/images/), taken from the real service and checked in. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { differingPixels } from './png.ts';

/**
 * The page as it stands (the viewport), written to `path` when it shows something new: a
 * border's anti-aliasing moves a few pixels between runs (22 of 1,024,000 seen), which should
 * not leave the working tree changed.
 */
export async function docsPicture(page: Page, path: string): Promise<void> {
  const png = await page.screenshot({ animations: 'disabled', caret: 'hide' });
  if (existsSync(path) && differingPixels(readFileSync(path), png).length <= 100) return;
  writeFileSync(path, png);
}
