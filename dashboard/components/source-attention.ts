/**
 * The sources that need a person (needs reconnecting, failing), shared by the
 * navigation's badge, the Overview's notice and the Sources page: read from
 * `GET /sources/attention` each time the page changes (the shell), and
 * published at once by the Sources page whenever it loads its list (an
 * `rp:attention` event with the list, so that its lazily loaded chunk imports
 * nothing from here), so that a reconnect clears the badge without waiting.
 * Kept small: it is in every page.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type SourceAttention } from '../api.ts';

const EVENT = 'rp:attention';
let current: SourceAttention[] = [];
// First of the event's listeners: the list is current before any component reads it.
addEventListener(EVENT, (e) => (current = (e as CustomEvent<SourceAttention[]>).detail));

export const publishAttention = (items: SourceAttention[]): boolean => dispatchEvent(new CustomEvent(EVENT, { detail: items }));

/** Read again; a failure changes nothing (the Sources page says what is wrong with the sources). */
export const refreshAttention = (): Promise<unknown> => call<{ data: SourceAttention[] }>('GET', '/sources/attention').then((res) => publishAttention(res.data), () => undefined);

/** The list as last read, kept current. */
export function useSourcesAttention(): SourceAttention[] {
  const [items, setItems] = useState(current);
  useEffect(() => {
    const update = () => setItems(current);
    addEventListener(EVENT, update);
    // Published between the first render and this effect: not missed.
    update();
    return () => removeEventListener(EVENT, update);
  }, []);
  return items;
}

/** "1 needs attention", "2 need attention". */
export const attentionPhrase = (count: number): string => `${count} need${count === 1 ? 's' : ''} attention`;
