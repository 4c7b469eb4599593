import type { LangList, LangText } from '../map/map-row.js';
import type { ViewSize } from '../schema/bounded.js';

/**
 * The standard JSON-LD product node and request envelope (contract 2.7, docs/architecture.md section 3):
 * `category[].codeValue`, `brand.@id`, `offers.availabilityEnds` (correctly spelled),
 * TextObject descriptions, ImageObject images, additionalProperty for html / seo_title /
 * hsCode / sustainabilityTags. Input: the typed values of `mapRow`, keyed by canonical name.
 */
export type Node = Record<string, unknown>;

interface LangValue {
  '@value': string;
  '@language': string;
}

/** One language: one object; several: an array (contract 2.7, multi-language rule). */
export function langValue(texts: LangText[]): LangValue | LangValue[] {
  if (texts.length === 1) return { '@value': texts[0].value, '@language': texts[0].language };
  return texts.map((t) => ({ '@value': t.value, '@language': t.language }));
}

/** A list item that is a number when it reads as one (else left as text: the schema names it). */
function numeric(text: string): number | string {
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

function categories(
  names: LangList[] | undefined,
  codes: string[] | undefined,
  positions?: string[],
): Node[] | undefined {
  let count = codes?.length ?? 0;
  if (names) for (let j = 0; j < names.length; j++) count = Math.max(count, names[j].items.length);
  if (count === 0) return undefined;
  const out: Node[] = [];
  for (let i = 0; i < count; i++) {
    const category: Node = { '@type': 'CategoryCode' };
    // The name in langValue's shape, made directly (this runs for every category of every row).
    let name: LangValue | LangValue[] | undefined;
    if (names) {
      for (let j = 0; j < names.length; j++) {
        const item = names[j].items[i];
        if (item === undefined) continue;
        const value: LangValue = { '@value': item, '@language': names[j].language };
        if (name === undefined) name = value;
        else if (Array.isArray(name)) name.push(value);
        else name = [name, value];
      }
    }
    if (name !== undefined) category.name = name;
    const code = codes?.[i];
    if (code !== undefined) category.codeValue = code;
    const position = positions?.[i];
    if (position !== undefined) category.position = numeric(position);
    out.push(category);
  }
  return out;
}

const ADDITIONAL: [string, string][] = [
  ['html', 'html'],
  ['seo_title', 'seo_title'],
  ['hs_code', 'hsCode'],
  ['sustainability_tags', 'sustainabilityTags'],
];

export function buildStandardProduct(v: Record<string, unknown>): Node {
  const node: Node = { '@type': 'Product' };
  if (v.sku !== undefined) node.sku = v.sku;
  if (v.name !== undefined) node.name = langValue(v.name as LangText[]);
  const category = categories(
    v.category_name as LangList[] | undefined,
    v.category_code as string[] | undefined,
    v.category_position as string[] | undefined,
  );
  if (category) node.category = category;
  if (v.brand_id !== undefined || v.brand_name !== undefined || v.brand_logo !== undefined) {
    const brand: Node = { '@type': 'Brand' };
    if (v.brand_id !== undefined) brand['@id'] = v.brand_id;
    if (v.brand_name !== undefined) brand.name = langValue(v.brand_name as LangText[]);
    if (v.brand_logo !== undefined) brand.logo = v.brand_logo;
    node.brand = brand;
  }
  if (v.description !== undefined || v.seo_description !== undefined) {
    const texts: Node[] = ((v.description as LangText[] | undefined) ?? []).map((t) => ({
      '@type': 'TextObject',
      text: t.value,
      inLanguage: t.language,
    }));
    // The sample's description[].additionalProperty seo_description, on the TextObject of its
    // language; without a description in that language the TextObject lacks its text (an error).
    for (const seo of (v.seo_description as LangText[] | undefined) ?? []) {
      let text = texts.find((t) => t.inLanguage === seo.language);
      if (!text) {
        text = { '@type': 'TextObject', inLanguage: seo.language };
        texts.push(text);
      }
      text.additionalProperty = [
        { '@type': 'PropertyValue', propertyID: 'seo_description', value: seo.value },
      ];
    }
    node.description = texts;
  }
  const offers: Node = { '@type': 'Offer' };
  const offerSku = v.offer_sku ?? v.sku;
  if (offerSku !== undefined) offers.sku = offerSku;
  if (v.gtin !== undefined) offers.gtin = v.gtin;
  if (v.mpn !== undefined) offers.mpn = v.mpn;
  if (v.price !== undefined) offers.price = v.price;
  if (v.currency !== undefined) offers.priceCurrency = v.currency;
  if (v.availability !== undefined) offers.availability = v.availability;
  if (v.availability_starts !== undefined) offers.availabilityStarts = v.availability_starts;
  if (v.availability_ends !== undefined) offers.availabilityEnds = v.availability_ends;
  if (v.image_urls !== undefined) {
    // Sizes by the image's position in image_urls (the sample's contentSize, width, height).
    const sizes = v.image_content_size as string[] | undefined;
    const widths = v.image_width as string[] | undefined;
    const heights = v.image_height as string[] | undefined;
    offers.image = (v.image_urls as string[]).map((contentUrl, i) => {
      const image: Node = { '@type': 'ImageObject', contentUrl };
      if (sizes?.[i] !== undefined) image.contentSize = sizes[i];
      if (widths?.[i] !== undefined) image.width = numeric(widths[i]);
      if (heights?.[i] !== undefined) image.height = numeric(heights[i]);
      return image;
    });
  }
  if (v.shipping_weight !== undefined) {
    const weight: Node = { '@type': 'QuantitativeValue', value: v.shipping_weight };
    if (v.shipping_weight_unit !== undefined) weight.unitCode = v.shipping_weight_unit;
    offers.shippingDetails = { '@type': 'OfferShippingDetails', weight };
  }
  if (v.unit_price !== undefined || v.unit_code !== undefined) {
    const spec: Node = { '@type': 'UnitPriceSpecification' };
    if (v.unit_price !== undefined) spec.price = v.unit_price;
    if (v.unit_code !== undefined) spec.unitCode = v.unit_code;
    offers.priceSpecification = spec;
  }
  if (v.inventory_level !== undefined) {
    offers.inventoryLevel = { '@type': 'QuantitativeValue', value: v.inventory_level };
  }
  node.offers = offers;
  if (v.url !== undefined) node.url = langValue(v.url as LangText[]);
  if (v.positive_notes !== undefined) node.positiveNotes = langValue(v.positive_notes as LangText[]);
  if (v.material !== undefined) node.material = langValue(v.material as LangText[]);
  if (v.item_condition !== undefined) node.itemCondition = v.item_condition;
  if (v.has_adult_consideration !== undefined) node.hasAdultConsideration = v.has_adult_consideration;
  if (v.country_of_origin !== undefined)
    node.countryOfOrigin = { '@type': 'Country', name: v.country_of_origin };
  let additional: Node[] | undefined;
  for (let i = 0; i < ADDITIONAL.length; i++) {
    const value = v[ADDITIONAL[i][0]];
    if (value === undefined) continue;
    additional ??= [];
    additional.push({
      '@type': 'PropertyValue',
      propertyID: ADDITIONAL[i][1],
      value: Array.isArray(value) ? value.join(', ') : value,
    });
  }
  if (additional) node.additionalProperty = additional;
  return node;
}

/**
 * The most JSON values (objects, lists and scalars, the node itself included) and the longest
 * list in a product built from a mapped row of `units` values whose longest field has `longest`
 * entries (src/map/map-row.ts, MappedRow): a unit makes at most 10 values (a seo_description's
 * TextObject and PropertyValue: 8; a sku: 2, offers.sku too), the node's own objects and lists
 * fewer than 30; a list holds one field's entries, or two's (description and seo_description),
 * or the four additionalProperty fields. So a row can be known small without walking its
 * product (src/schema/bounded.ts); test/payload/built-size.test.ts holds the builder to it.
 */
export function builtSize(units: number, longest: number): ViewSize {
  return { values: 30 + 10 * units, listItems: Math.max(2 * longest, 4) };
}

export interface EnvelopeOptions {
  /** Unique request id (a UUID v4), kept across retries of the same request. */
  id: string;
  type: 'create_product' | 'update_product';
  agentName: string;
}

/** The request body of POST /collectors/products for a batch of product nodes. */
export function buildStandardEnvelope(products: object[], opts: EnvelopeOptions): Node {
  return {
    '@context': 'https://schema.org/',
    specversion: '1.0',
    id: opts.id,
    type: opts.type,
    agent: { '@type': 'Organization', name: opts.agentName },
    '@graph': products,
  };
}
