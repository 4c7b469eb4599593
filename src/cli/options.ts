import { type Command, Option } from 'commander';
import type {
  EncodingName,
  FeedOptions,
  InputType,
  Language,
  LegacyKind,
  PayloadFormat,
} from '../shared/types.js';
import { loadConfigFile, parseAs, pick, type Sources } from './config.js';

/**
 * The shared flags of DESIGN.md section 4, declared once. No commander defaults: the defaults
 * live in `resolveFeedOptions`, after environment and config file had their say.
 */
export const FORMATS = ['standard', 'legacy'] as const satisfies readonly PayloadFormat[];
export const KINDS = ['products', 'contents', 'filters'] as const satisfies readonly LegacyKind[];
export const ENCODINGS = [
  'auto',
  'utf-8',
  'cp949',
  'euc-kr',
  'shift_jis',
  'utf-16le',
  'utf-16be',
] as const satisfies readonly EncodingName[];
export const INPUT_TYPES = ['csv', 'json', 'ndjson'] as const satisfies readonly InputType[];
export const LANGUAGES = ['ko', 'en', 'ja'] as const satisfies readonly Language[];

/** Flags every command has. */
export function addCommonOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'settings file (default: ./genser.config.json when present)')
    .option('--json', 'machine-readable output: exactly one JSON document on stdout')
    .option('--quiet', 'only errors and the summary on stderr')
    .option('--debug', 'show debugging detail (stack traces of internal errors)');
}

/** Flags of the commands that read feeds: validate, convert, upload. */
export function addFeedOptions(cmd: Command): Command {
  return addCommonOptions(cmd)
    .addOption(new Option('--format <format>', 'payload format (default: standard)').choices(FORMATS))
    .addOption(new Option('--kind <kind>', 'legacy data kind (default: products)').choices(KINDS))
    .option('--mapping <file>', 'mapping file (JSON) from your columns to product fields')
    .addOption(new Option('--encoding <name>', 'input encoding (default: auto)').choices(ENCODINGS))
    .option('--delimiter <char>', 'CSV delimiter (default: sniffed from , ; tab |)')
    .addOption(
      new Option('--input-type <type>', 'input type (default: from the extension)').choices(INPUT_TYPES),
    )
    .addOption(
      new Option('--language <lang>', 'language of plain text columns (default: ko)').choices(LANGUAGES),
    )
    .option('--strict', 'treat missing recommended fields as errors')
    .option('--country <code>', 'country whose time zone reads local dates (default: KR)')
    .option('--max-errors <n>', 'list at most this many issues in detail (default: 20)')
    .option('--report <file>', 'also write the JSON report to this file');
}

export function sourcesFor(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Sources {
  return { flags, env, config: loadConfigFile(flags.config as string | undefined) };
}

export function resolveFeedOptions(sources: Sources): FeedOptions {
  const delimiter = pick<string | undefined>(sources, 'delimiter', 'GENSER_DELIMITER', undefined, (raw) =>
    raw === '\\t' || raw === 'tab' ? '\t' : String(raw),
  );
  return {
    format: pick(sources, 'format', 'GENSER_FORMAT', 'standard', parseAs.oneOf(FORMATS)),
    kind: pick(sources, 'kind', 'GENSER_KIND', 'products', parseAs.oneOf(KINDS)),
    mapping: pick<string | undefined>(sources, 'mapping', 'GENSER_MAPPING', undefined, parseAs.string),
    encoding: pick(sources, 'encoding', 'GENSER_ENCODING', 'auto', parseAs.oneOf(ENCODINGS)),
    delimiter,
    inputType: pick<InputType | undefined>(
      sources,
      'inputType',
      undefined,
      undefined,
      parseAs.oneOf(INPUT_TYPES),
    ),
    language: pick(sources, 'language', 'GENSER_LANGUAGE', 'ko', parseAs.oneOf(LANGUAGES)),
    strict: pick(sources, 'strict', undefined, false, parseAs.bool),
    country: pick(sources, 'country', 'GENSER_COUNTRY', 'KR', (raw) => String(raw).toUpperCase()),
  };
}
