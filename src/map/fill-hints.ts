/**
 * How to fill a required standard field a feed lacks: the exact `--set` flag where one value
 * can serve every row, else the mapping line that reads it from a column. Used by the run's
 * summary (src/report/missing-fields.ts) and by `genser init` (src/init/).
 */
const CURRENCY_BY_COUNTRY: Record<string, string> = {
  KR: 'KRW',
  JP: 'JPY',
  US: 'USD',
  GB: 'GBP',
  CN: 'CNY',
  TW: 'TWD',
  HK: 'HKD',
  SG: 'SGD',
  DE: 'EUR',
  FR: 'EUR',
};

/** Payload paths a `required` issue names -> the mapping targets that fill them. */
export const TARGETS_BY_PATH: Record<string, string[]> = {
  sku: ['sku'],
  name: ['name'],
  category: ['category_name'],
  'category.name': ['category_name'],
  brand: ['brand_id', 'brand_name'],
  'brand.@id': ['brand_id'],
  'brand.name': ['brand_name'],
  description: ['description'],
  offers: ['price', 'currency'],
  'offers.sku': ['sku'],
  'offers.gtin': ['gtin'],
  'offers.mpn': ['mpn'],
  'offers.price': ['price'],
  'offers.priceCurrency': ['currency'],
  'offers.availability': ['availability'],
  'offers.availabilityStarts': ['availability_starts'],
  'offers.availabilityEnds': ['availability_ends'],
  'offers.image': ['image_urls'],
};

/** The standard fields every product needs (contract 3.2), in the order a merchant fills them. */
export const REQUIRED_TARGETS = [
  'sku',
  'name',
  'brand_id',
  'brand_name',
  'category_name',
  'description',
  'price',
  'currency',
  'availability',
  'availability_starts',
  'availability_ends',
  'gtin',
  'mpn',
  'image_urls',
] as const;

/** The currency of a country's shops (USD when genser does not know it). */
export function currencyFor(country: string): string {
  return CURRENCY_BY_COUNTRY[country.toUpperCase()] ?? 'USD';
}

/** One value fits every row: these can be `--set` (undefined: a per-product field). */
export function setFlag(target: string, country: string): string | undefined {
  switch (target) {
    case 'currency':
      return `--set currency=${currencyFor(country)}`;
    case 'availability_starts':
      return '--set availability_starts=today';
    case 'availability_ends':
      return '--set availability_ends=+1y';
    case 'availability':
      return '--set availability=InStock';
    case 'brand_id':
      return '--set brand_id=my-brand';
    case 'brand_name':
      return "--set brand_name='My Brand'";
    default:
      return undefined;
  }
}

/** Why a per-product field cannot be one value for all. */
const PER_PRODUCT: Record<string, string> = {
  gtin: 'a GTIN (EAN/UPC/JAN barcode) differs per product',
  mpn: 'a part number differs per product',
  sku: 'a SKU differs per product',
  name: 'a name differs per product',
  price: 'a price differs per product',
  image_urls: 'images differ per product',
  description: 'a description differs per product',
  category_name: 'categories differ per product',
};

export function fillHint(target: string, country = 'KR'): string {
  const flag = setFlag(target, country);
  if (flag) {
    const value = flag.slice(flag.indexOf('=') + 1).replace(/^'|'$/g, '');
    return `${flag} (or "defaults": {"${target}": "${value}"} in the mapping file)`;
  }
  const why = PER_PRODUCT[target];
  return `map the column that has it: "${target}": "YOUR COLUMN" in the mapping file's "fields"${why ? ` (${why}: no --set)` : ''}`;
}
