/**
 * Which shipped preset reads a file, from its header alone (docs/presets.md). Each shop's
 * exporter writes a few columns no hand-made catalog has together.
 */
const norm = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '_');

const SIGNATURES: { preset: string; all: string[]; any?: string[] }[] = [
  {
    preset: 'shopify',
    all: ['handle', 'title'],
    any: ['variant_sku', 'variant_price', 'variant_inventory_policy'],
  },
  {
    preset: 'woocommerce',
    all: ['id', 'type', 'sku', 'name'],
    any: ['regular_price', 'in_stock?', 'parent'],
  },
  {
    preset: 'magento',
    all: ['sku', 'product_type'],
    any: ['store_view_code', 'attribute_set_code', 'url_key'],
  },
  { preset: 'google-merchant', all: ['id', 'title', 'price'], any: ['image_link', 'link', 'availability'] },
];

export function suggestPreset(header: readonly string[]): string | undefined {
  const have = new Set(header.map(norm));
  for (const s of SIGNATURES) {
    if (s.all.every((c) => have.has(c)) && (!s.any || s.any.some((c) => have.has(c)))) return s.preset;
  }
  return undefined;
}
