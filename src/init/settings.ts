import { currencyFor } from '../map/fill-hints.js';
import type { FieldSpecJson, MappingJson } from '../map/mapping-file.js';
import { placeholder } from '../map/placeholders.js';

/**
 * What an export cannot hold, written into the mapping `genser init` drafts so that the next run
 * needs no --set (docs/presets.md, "genser init FILE"). Where genser can tell the value (the currency of
 * the run's country, a sale window that moves with each run) it writes it; where only the
 * merchant can (the brand of a one-brand shop, whether everything is in stock, Magento's media
 * URL) it writes a placeholder that the mapping refuses until it is replaced. Each comes with
 * a note saying what to check or fill in.
 */
export interface ExportSettings {
  defaults: Record<string, string>;
  notes: string[];
  fields: MappingJson['fields'];
}

/** Currencies without minor units (ISO 4217 exponent 0) among those --country gives. */
const WHOLE_UNITS = new Set(['KRW', 'JPY']);

/** `69.99`, `$1,299.50`, Magento's `69.9900`: a price with cents (`85.00` says nothing). */
const hasCents = (price: string) => /^\D*[\d,]*\d\.(?!0+\D*$)\d+\D*$/.test(price.trim());

export function exportSettings(
  given: (target: string) => boolean,
  fields: MappingJson['fields'],
  options: {
    country: string;
    preset?: string;
    /** Sampled values of the export's price columns. */
    prices: string[];
  },
): ExportSettings {
  const defaults: Record<string, string> = {};
  const notes: string[] = [];
  const out = { ...fields };
  if (!given('brand_id') && !given('brand_name')) {
    defaults.brand_id = placeholder("your brand's id, e.g. my-brand");
    defaults.brand_name = placeholder("your brand's name, e.g. My Brand");
    // The preset's brand columns are not in this export: reading them would warn on every run.
    delete out.brand_id;
    delete out.brand_name;
    notes.push(
      'defaults.brand_id/brand_name: the export names no brand. If your shop sells one brand, write its id and name there; if it sells several, delete these two defaults and map the column that names each product\'s brand in "fields" ("brand_id" and "brand_name")',
    );
  }
  if (!given('currency')) {
    const currency = currencyFor(options.country);
    const cents = WHOLE_UNITS.has(currency) ? options.prices.find(hasCents) : undefined;
    if (cents !== undefined) {
      // 69.99 is no KRW price: the run's country is not the shop's, and a wrong currency
      // would send every price a thousand times off.
      defaults.currency = placeholder("your shop's currency (ISO 4217, e.g. USD)");
      notes.push(
        `defaults.currency: the export does not say, and it is not ${currency} (the currency of --country ${options.country.toUpperCase()}): its prices have cents (${cents}), which ${currency} has not. Write your shop's currency there, or run init again with your --country`,
      );
    } else {
      defaults.currency = currency;
      notes.push(
        `defaults.currency is ${currency}, the currency of --country ${options.country.toUpperCase()}: the export does not say; change it if your shop sells in another`,
      );
    }
  }
  if (!given('availability')) {
    defaults.availability = placeholder('InStock if every product of this file is in stock');
    notes.push(
      'defaults.availability: the export does not say what is in stock. Write InStock if every product it lists can be bought; otherwise delete it and map your stock column in "fields", e.g. "availability": {"column": "stock", "map": {"Y": "InStock", "N": "OutOfStock"}}',
    );
  }
  const starts = !given('availability_starts');
  const ends = !given('availability_ends');
  if (starts) defaults.availability_starts = 'today';
  if (ends) defaults.availability_ends = '+1y';
  if (starts || ends)
    notes.push(
      `defaults.${starts && ends ? 'availability_starts/availability_ends' : starts ? 'availability_starts' : 'availability_ends'}: the export has no sale window; each run sends one from its own day for a year (today, +1y): set dates if your products have their own`,
    );
  if (options.preset === 'magento') {
    const image = fields.image_urls;
    const spec: FieldSpecJson = typeof image === 'string' ? { column: image } : { ...image };
    spec.prefix = placeholder("your store's media URL, e.g. https://shop.example.com/media/catalog/product");
    out.image_urls = spec;
    notes.push(
      "fields.image_urls.prefix: Magento's image paths (/m/h/mh01-gray_main.jpg) are relative to your store's media URL: write it there, e.g. https://shop.example.com/media/catalog/product",
    );
  }
  return { defaults, notes, fields: out };
}
