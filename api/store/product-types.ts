/**
 * An organization's product catalog (CONTRACT §13): what a review may be
 * about. Both stores implement `ProductStore`; `contract.test.ts` runs the
 * same suite against each. Validation lives in api/products (the one door):
 * a store keeps what it is given.
 */

/** A catalog id: the organization's SKU or handle, case-sensitive. */
export const PRODUCT_ID = /^[A-Za-z0-9._-]{1,100}$/;

export interface Product {
  orgId: string;
  /** Unique in the organization (PRODUCT_ID). */
  id: string;
  name: string;
  url: string | null;
  imageUrl: string | null;
  gtin: string | null;
  brand: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What an upsert gives: every field but the stamps (an update keeps `createdAt`). */
export type ProductInput = Omit<Product, 'createdAt' | 'updatedAt'>;

/** A catalog entry with its live reviews counted (the products list). */
export interface ProductSummary extends Product {
  reviewCount: number;
  /** Over its rated reviews, rounded like the statistics; null without any. */
  averageRating: number | null;
}

export type ProductRemoval = 'removed' | 'not_found' | 'has_reviews';

export interface ProductStore {
  /** Insert or replace by (orgId, id); `created` says which. */
  upsert(input: ProductInput, now: Date): Promise<{ product: Product; created: boolean }>;
  get(orgId: string, id: string): Promise<Product | null>;
  /** The organization's catalog, by id, each with its review count and average. */
  list(orgId: string): Promise<ProductSummary[]>;
  /** Forgets a product no live review names; `has_reviews` while one does. */
  remove(orgId: string, id: string): Promise<ProductRemoval>;
}
