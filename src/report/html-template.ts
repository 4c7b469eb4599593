/**
 * HTML built so that a value cannot be inserted unescaped: the `html` tag escapes every value
 * put into its template (text and attribute values alike), unless that value is itself `Html`,
 * made by this tag or by `raw`. A forgotten call cannot become an injection into a report that
 * CI shows as an artifact: there is no call to forget.
 */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** What a template takes: markup, text and numbers (escaped), lists (joined), nothing. */
export type HtmlValue = Html | string | number | undefined | null | false | readonly HtmlValue[];

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

function part(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(part).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(value as string | number);
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Markup genser itself wrote (the report's stylesheet and script), taken as it is. */
export function trusted(markup: string): Html {
  return new Html(markup);
}

/** JSON inside <script>: `<` escaped so no `</script>` or `<!--` in the data can end it. */
export function scriptJson(value: unknown): Html {
  return new Html(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );
}
