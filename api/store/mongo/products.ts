/**
 * The product catalog on MongoDB (product-types.ts): `products`, one document
 * per product keyed by the natural `_id` `orgId/id` (organization ids and
 * product ids never hold "/"), so an upsert is found without a scan on
 * FerretDB too. Review counts come from the `reviews` collection's
 * `{orgId, productId, date, id}` index (review-queries.ts).
 */
import type { Collection, Db } from 'mongodb';
import { roundRatio2 } from '../../reviews/stats-math.ts';
import type { Product, ProductStore, ProductSummary } from '../product-types.ts';
import type { ReviewDocument } from './review-queries.ts';

type ProductDocument = Product & { _id: string };

const productKey = (orgId: string, id: string): string => `${orgId}/${id}`;

function product(doc: ProductDocument): Product {
  const { _id, ...rest } = doc;
  return rest;
}

/** A `$group` row: a product's reviews of one rating (null = unrated). */
interface ProductRatingCount {
  _id: { productId: string; rating: number | null };
  count: number;
}

export class MongoProducts implements ProductStore {
  private readonly col: Collection<ProductDocument>;

  constructor(
    db: Db,
    private readonly reviews: Collection<ReviewDocument>,
  ) {
    this.col = db.collection('products');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndex({ orgId: 1, id: 1 }, { name: 'org_id' });
  }

  async upsert(input: Omit<Product, 'createdAt' | 'updatedAt'>, now: Date): Promise<{ product: Product; created: boolean }> {
    const stamp = now.toISOString();
    const { orgId, id, name, url, imageUrl, gtin, brand } = input;
    const written = await this.col.updateOne(
      { _id: productKey(orgId, id) },
      { $set: { orgId, id, name, url, imageUrl, gtin, brand, updatedAt: stamp }, $setOnInsert: { createdAt: stamp } },
      { upsert: true },
    );
    const doc = await this.col.findOne({ _id: productKey(orgId, id) });
    if (!doc) throw new Error(`product ${id} was written but cannot be read back`);
    return { product: product(doc), created: written.upsertedCount === 1 };
  }

  async get(orgId: string, id: string): Promise<Product | null> {
    const doc = await this.col.findOne({ _id: productKey(orgId, id) });
    return doc ? product(doc) : null;
  }

  async list(orgId: string): Promise<ProductSummary[]> {
    const [docs, rows] = await Promise.all([
      this.col.find({ orgId }).sort({ id: 1 }).toArray(),
      this.reviews
        .aggregate<ProductRatingCount>([
          { $match: { orgId, productId: { $ne: null } } },
          { $group: { _id: { productId: '$productId', rating: '$rating' }, count: { $sum: 1 } } },
        ])
        .toArray(),
    ]);
    const counts = new Map<string, { count: number; rated: number; sum: number }>();
    for (const { _id, count } of rows) {
      let c = counts.get(_id.productId);
      if (!c) counts.set(_id.productId, (c = { count: 0, rated: 0, sum: 0 }));
      c.count += count;
      if (_id.rating !== null && _id.rating !== undefined) {
        c.rated += count;
        c.sum += _id.rating * count;
      }
    }
    // Sorted here as well: byte order of ids, as the embedded store answers.
    return docs
      .map(product)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((p) => {
        const c = counts.get(p.id);
        return { ...p, reviewCount: c?.count ?? 0, averageRating: c && c.rated > 0 ? roundRatio2(c.sum, c.rated) : null };
      });
  }

  async remove(orgId: string, id: string): Promise<'removed' | 'not_found' | 'has_reviews'> {
    if (!(await this.col.findOne({ _id: productKey(orgId, id) }, { projection: { _id: 1 } }))) return 'not_found';
    if ((await this.reviews.countDocuments({ orgId, productId: id }, { limit: 1 })) > 0) return 'has_reviews';
    return (await this.col.deleteOne({ _id: productKey(orgId, id) })).deletedCount === 1 ? 'removed' : 'not_found';
  }
}
