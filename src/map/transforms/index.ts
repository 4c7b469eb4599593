import type { ReadItem } from '../../shared/types.js';
import type { TransformName } from '../mapping-file.js';
import type { RecordTransform, TransformContext } from './common.js';
import { GOOGLE_MERCHANT_READS, googleMerchant, merchantCenterName } from './google-merchant.js';
import { MAGENTO_READS, magento } from './magento.js';
import { SHOPIFY_READS, shopify } from './shopify.js';
import { WOOCOMMERCE_READS, woocommerce } from './woocommerce.js';

export type { RecordTransform, TransformContext } from './common.js';

/** Each transform's columns it reads to make its rows. */
export const TRANSFORM_READS: Record<TransformName, readonly string[]> = {
  shopify: SHOPIFY_READS,
  woocommerce: WOOCOMMERCE_READS,
  magento: MAGENTO_READS,
  'google-merchant': GOOGLE_MERCHANT_READS,
};

const TRANSFORMS: Record<TransformName, RecordTransform> = {
  shopify,
  woocommerce,
  magento,
  'google-merchant': googleMerchant,
};

/** One file's reads through the mapping's shop transform (the only place transforms hook in). */
export function transformReads(
  name: TransformName | undefined,
  reads: AsyncIterable<ReadItem>,
  ctx: TransformContext,
): AsyncIterable<ReadItem> {
  return name ? TRANSFORMS[name](reads, ctx) : reads;
}

/** A header's column as a transform names it (Merchant Center's in any case, with spaces). */
export function transformColumn(name: TransformName | undefined, column: string): string {
  return name === 'google-merchant' ? merchantCenterName(column) : column;
}
