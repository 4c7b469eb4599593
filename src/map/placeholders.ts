import { pointerToken } from '../shared/json-pointer.js';

/**
 * Placeholders: values `genser init` writes into a mapping file where the export cannot say
 * (a one-brand shop's brand, Magento's media URL), for the merchant to replace. A mapping that
 * still holds one is refused as a whole, so a placeholder never reaches a payload.
 * docs/presets.md, "genser init FILE".
 */
export const FILL_IN = 'FILL IN:';

/** The value init writes: what to put there, e.g. `FILL IN: your brand's name`. */
export const placeholder = (what: string): string => `${FILL_IN} ${what}`;

/**
 * The placeholders left in a mapping's settings (`defaults`, `fields`), each with its JSON
 * pointer, in file order; `notes` and `description` only talk about them and are not looked at.
 */
export function findPlaceholders(json: {
  defaults?: unknown;
  fields?: unknown;
}): { pointer: string; value: string }[] {
  const found: { pointer: string; value: string }[] = [];
  const walk = (value: unknown, pointer: string): void => {
    if (typeof value === 'string') {
      if (value.startsWith(FILL_IN)) found.push({ pointer, value });
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [k, v] of Object.entries(value)) walk(v, `${pointer}/${pointerToken(k)}`);
  };
  walk(json.defaults, '/defaults');
  walk(json.fields, '/fields');
  return found;
}
