/** Builds a CSV row's `fields` object from its values, in header order. */
export type RecordMaker = (values: string[]) => Record<string, unknown>;

/**
 * Compiled once per header: an object literal with the header's names is built about ten times
 * faster than setting keys one by one, and gives objects with a fixed shape (fast to read for
 * the stages after). Names are embedded as JSON string literals, so no header text can inject
 * code. `__proto__` in a literal would set the prototype, so such a header takes the slow path.
 */
export function recordMaker(names: readonly string[]): RecordMaker {
  if (names.includes('__proto__')) return slowMaker(names);
  const body = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(',\n');
  return new Function('v', `return {\n${body}\n};`) as RecordMaker;
}

function slowMaker(names: readonly string[]): RecordMaker {
  return (values) => {
    const record: Record<string, unknown> = {};
    for (let j = 0; j < names.length; j++) {
      Object.defineProperty(record, names[j], {
        value: values[j],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return record;
  };
}
