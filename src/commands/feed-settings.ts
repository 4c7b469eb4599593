import { readMappingDefaults } from '../map/mapping-file.js';
import type {
  EncodingName,
  FeedOptions,
  InputType,
  Language,
  LegacyKind,
  PayloadFormat,
} from '../shared/types.js';
import type { CommandContext } from './context.js';

/** The settings every feed command (validate, convert, upload) reads; the CLI resolves them. */
export interface FeedSettings {
  format: PayloadFormat;
  kind: LegacyKind;
  mapping?: string;
  preset?: string;
  set?: string[];
  encoding: EncodingName;
  delimiter?: string;
  inputType?: InputType;
  language: Language;
  country: string;
  strict?: boolean;
  threads: 'auto' | number;
  maxErrors?: number;
  report?: string;
  reporter?: string[];
  json?: boolean;
  quiet?: boolean;
  warnings: boolean;
  /** `--rejects FILE`: refused and rejected rows as they were in the source (src/report/rejects.ts). */
  rejects?: string;
}

/**
 * The pipeline's options. A mapping file's own `format`, `kind`, `language` and `country` come
 * after flags, environment and config file and before the built-in defaults: they apply only to
 * what the user did not set (docs/feeds.md, "Precedence").
 */
export function feedOptionsFrom(s: FeedSettings, ctx: Pick<CommandContext, 'explicit'>): FeedOptions {
  const options: FeedOptions = {
    format: s.format,
    kind: s.kind,
    mapping: s.mapping,
    preset: s.preset,
    set: s.set,
    encoding: s.encoding,
    delimiter: s.delimiter,
    inputType: s.inputType,
    language: s.language,
    strict: s.strict === true,
    country: s.country,
    countryGiven: ctx.explicit.has('country'),
    languageGiven: ctx.explicit.has('language'),
  };
  if (s.mapping) {
    const m = readMappingDefaults(s.mapping);
    if (m.format && !ctx.explicit.has('format')) options.format = m.format;
    if (m.kind && !ctx.explicit.has('kind')) options.kind = m.kind;
  }
  return options;
}

/** `--threads`: auto (by size: src/feed/run.ts `workersFor`) or a count of feed workers (0: none). */
export function workersFrom(s: Pick<FeedSettings, 'threads'>): number | 'auto' {
  const t = s.threads;
  // Settings read before this option took counts may still hold '0' or '1'.
  return t === 'auto' ? 'auto' : Number(t);
}
