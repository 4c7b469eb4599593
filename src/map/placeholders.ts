/**
 * Placeholders: values `genser init` writes into a mapping file where the export cannot say
 * (a one-brand shop's brand, Magento's media URL), for the merchant to replace. A mapping that
 * still holds one is refused as a whole, so a placeholder never reaches a payload.
 * docs/presets.md, "genser init FILE".
 */
export const FILL_IN = 'FILL IN:';

/** The value init writes: what to put there, e.g. `FILL IN: your brand's name`. */
export const placeholder = (what: string): string => `${FILL_IN} ${what}`;

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The first placeholder left in a mapping's settings (`defaults`, `fields`), with its JSON
 * pointer; `notes` and `description` only talk about them and are not looked at.
 */
export function findPlaceholder(json: {
  defaults?: unknown;
  fields?: unknown;
}): { pointer: string; value: string } | undefined {
  const walk = (value: unknown, pointer: string): { pointer: string; value: string } | undefined => {
    if (typeof value === 'string') return value.startsWith(FILL_IN) ? { pointer, value } : undefined;
    if (value === null || typeof value !== 'object') return undefined;
    for (const [k, v] of Object.entries(value)) {
      const hit = walk(v, `${pointer}/${escapePointer(k)}`);
      if (hit) return hit;
    }
    return undefined;
  };
  return walk(json.defaults, '/defaults') ?? walk(json.fields, '/fields');
}
