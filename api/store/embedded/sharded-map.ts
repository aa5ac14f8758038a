/**
 * A Map split over a fixed number of smaller Maps by a hash of the key. A JS
 * Map grows by rehashing every entry at once: at 524,288 and 1,048,576
 * entries (an organization's reviews by natural key) that single step held
 * the event loop for 30–60 ms. Shards grow one at a time, each a 64th of the
 * size. Iteration visits shard after shard (insertion order within each).
 */
const SHARDS = 64;

/** FNV-1a over the key's last 16 code units (the varying end of natural keys), folded to a shard. */
function shardOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = Math.max(0, key.length - 16); i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 16)) & (SHARDS - 1);
}

export class ShardedMap<V> {
  private readonly shards: Map<string, V>[] = Array.from({ length: SHARDS }, () => new Map<string, V>());
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    return this.shards[shardOf(key)]!.get(key);
  }

  set(key: string, value: V): void {
    const shard = this.shards[shardOf(key)]!;
    const before = shard.size;
    shard.set(key, value);
    this.count += shard.size - before;
  }

  delete(key: string): boolean {
    const gone = this.shards[shardOf(key)]!.delete(key);
    if (gone) this.count--;
    return gone;
  }

  *values(): IterableIterator<V> {
    for (const shard of this.shards) yield* shard.values();
  }
}
