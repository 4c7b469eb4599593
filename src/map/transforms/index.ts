import type { ReadItem } from '../../shared/types.js';
import type { TransformName } from '../mapping-file.js';
import type { RecordTransform, TransformContext } from './common.js';
import { googleMerchant } from './google-merchant.js';
import { magento } from './magento.js';
import { shopify } from './shopify.js';
import { woocommerce } from './woocommerce.js';

export type { RecordTransform, TransformContext } from './common.js';

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
