import { describe, expect, it } from 'vitest';
import { afterWord } from './after-word.ts';

describe('afterWord', () => {
  it('lowers the first word of a label that follows another, never an acronym', () => {
    // The Reconnect dialog's fields: one per credential of the sources page.
    expect(afterWord('New', 'API key')).toBe('New API key');
    expect(afterWord('New', 'API token')).toBe('New API token');
    expect(afterWord('New', 'Page access token')).toBe('New page access token');
    expect(afterWord('New', 'OAuth client secret')).toBe('New OAuth client secret');
    expect(afterWord('New', 'G2 token')).toBe('New G2 token');
    expect(afterWord('New', 'Password')).toBe('New password');
  });
});
