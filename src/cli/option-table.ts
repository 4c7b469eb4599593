import { NOTIFY_ON } from '../alerts/settings.js';
import { EVENT_TYPES } from '../events/kinds.js';
import { ON_GUARD, type OnGuard, type PriceShock, parsePriceShock } from '../nightly/guard-rules.js';
import { REPORTER_NAMES } from '../report/reporter-names.js';
import { SANDBOX_DEFAULTS } from '../sandbox/defaults.js';
import { UsageError } from '../shared/errors.js';
import type { EncodingName, InputType, Language, LegacyKind, PayloadFormat } from '../shared/types.js';
import { BACKEND_CHOICES, type BackendChoice } from '../storage/drivers.js';
import { type InvalidBudget, parseInvalidBudget } from '../upload/budget.js';
import { parseShard, parseShardCount } from '../upload/shard.js';
import * as p from './parsers.js';

/**
 * Every option of every command, once: its flag, environment variable, config key (the option's
 * name), default, parser, help and commands. From this table `src/cli/program.ts` registers the
 * commander options, `src/cli/settings.ts` resolves flags > environment > config file > defaults,
 * `genser config` shows where each value came from, and the README's option and environment
 * tables are generated (`npm run docs:options`; a test fails when they differ).
 */
export type CommandName =
  | 'config'
  | 'init'
  | 'search'
  | 'validate'
  | 'convert'
  | 'upload'
  | 'plan'
  | 'stock'
  | 'sandbox'
  | 'events example'
  | 'events validate'
  | 'events send'
  | 'events backfill'
  | 'runs'
  | 'state'
  | 'doctor'
  | 'completion';

export const COMMANDS: readonly CommandName[] = [
  'config',
  'init',
  'search',
  'validate',
  'convert',
  'upload',
  'stock',
  'sandbox',
  'events example',
  'events validate',
  'events send',
  'events backfill',
  'runs',
  'state',
  'doctor',
  'completion',
];

export interface OptionSpec<T> {
  /** commander flag: `--batch-size <n>`, `--strict`, `-o, --output <file>`. */
  flag: string;
  help: string;
  /** Environment variable, when the option has one. */
  env?: string;
  /** The built-in default; a function when it depends on the command. Absent: unset. */
  default?: T | ((command: CommandName) => T | undefined);
  /** How the default reads in help and docs, when not the value itself. */
  defaultText?: string;
  /** Absent for switches (booleans). */
  parse?: p.Parser<T>;
  /** Shown in help and docs; the parser does the checking (and accepts aliases). */
  choices?: readonly string[];
  commands: readonly CommandName[];
  /** A path: relative paths in a config file are relative to that file. */
  isPath?: boolean;
  /** `--no-<name>` too, to turn off a value set by environment or config file. */
  negatable?: boolean;
  /** Shown only as "set (FROM)". */
  secret?: boolean;
  /** Not in help or docs (kept to refuse it with a clear message). */
  hidden?: boolean;
  /** Not read from the config file (it names the config file itself). */
  noConfig?: boolean;
  /** May be given several times; the value is the list. */
  repeatable?: boolean;
  /**
   * What one command's --help says instead of `help` / `defaultText` (which the README's tables
   * keep whole), so a command's help holds only its own details.
   */
  commandHelp?: Partial<Record<CommandName, { help?: string; defaultText?: string }>>;
}

/** Keeps each entry's own type: its value type comes from its parser, its default decides "always set". */
// biome-ignore lint/suspicious/noExplicitAny: the table holds options of every value type
const opt = <S extends OptionSpec<any>>(spec: S): S => spec;

const FEED: CommandName[] = ['validate', 'convert', 'upload'];
const ALL: CommandName[] = [...COMMANDS];
const REPORTING: CommandName[] = ['validate', 'convert', 'upload', 'events validate', 'events send'];
/**
 * The commands that make requests (docs/networks.md): to a configured host, or for a feed given
 * as an http(s) URL (validate, convert).
 */
const NETWORK: CommandName[] = [
  'validate',
  'convert',
  'upload',
  'plan',
  'stock',
  'events send',
  'events backfill',
  'search',
  'doctor',
];

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
/** The usual other spellings (lower-cased, without `-`, `_` and spaces). */
const ENCODING_ALIASES: Record<string, EncodingName> = {
  utf8: 'utf-8',
  utf8bom: 'utf-8',
  cp949: 'cp949',
  ms949: 'cp949',
  windows949: 'cp949',
  uhc: 'cp949',
  kscs56011987: 'cp949',
  euckr: 'euc-kr',
  shiftjis: 'shift_jis',
  sjis: 'shift_jis',
  cp932: 'shift_jis',
  ms932: 'shift_jis',
  windows31j: 'shift_jis',
  utf16le: 'utf-16le',
  utf16be: 'utf-16be',
};
export const INPUT_TYPES = ['csv', 'json', 'ndjson'] as const satisfies readonly InputType[];
export const LANGUAGES = ['ko', 'en', 'ja'] as const satisfies readonly Language[];
export const ENVELOPE_TYPES = ['create_product', 'update_product'] as const;
export type EnvelopeType = (typeof ENVELOPE_TYPES)[number];
/** Feed workers `--threads` may ask for. */
const MAX_THREADS = 64;

/**
 * `--reporter` values: repeated flags and a config file's list arrive as arrays, the
 * environment variable as one space-separated string. Names are checked by `parseReporters`
 * when the command starts, with the stdout rules that depend on the command.
 */
const reporterValues: p.Parser<string[]> = (raw, from) => {
  const list = Array.isArray(raw) ? raw : String(raw).trim().split(/\s+/);
  return list.map((entry) => {
    if (typeof entry !== 'string' || entry.trim() === '')
      throw new UsageError(
        `${from} takes reporter names such as junit=reports/genser.xml; got ${JSON.stringify(entry)}`,
        `use ${REPORTER_NAMES.join(', ')}`,
      );
    return entry.trim();
  });
};

/** Events per second, fractions allowed (0.5 is one event every two seconds); 0: no limit. */
const eventsPerSecond: p.Parser<number> = (raw, from) => {
  const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
  if (String(raw).trim() === '' || !Number.isFinite(n) || n < 0 || n > 100_000)
    throw new UsageError(
      `${from} must be a number of events per second from 0 to 100000; got "${String(raw)}"`,
      'e.g. --rate 20; 0 means no limit',
    );
  return n;
};

const PRODUCT_MAPPING_HELP = 'mapping file (JSON) from your columns to product fields';
const FEED_PRESET_HELP =
  'shipped mapping for a shop export: shopify, woocommerce, magento, google-merchant, or a mapping file (docs/presets.md)';

export const OPTIONS = {
  // Every command.
  config: opt({
    flag: '--config <file>',
    help: 'settings file',
    env: 'GENSER_CONFIG',
    defaultText: './genser.config.json when present; under it $XDG_CONFIG_HOME/genser/config.json',
    parse: p.path,
    commands: ALL,
    isPath: true,
    noConfig: true,
  }),
  profile: opt({
    flag: '--profile <name>',
    help: 'use the named set of settings under "profiles" in the config files, e.g. staging, production',
    env: 'GENSER_PROFILE',
    parse: p.string,
    commands: ALL,
    noConfig: true,
  }),
  json: opt({
    flag: '--json',
    help: 'machine-readable output: exactly one JSON document on stdout',
    commands: ALL,
  }),
  quiet: opt({ flag: '--quiet', help: 'only errors and the summary on stderr', commands: ALL }),
  warnings: opt({
    flag: '--no-warnings',
    help: 'leave warnings out of the listing (they are still counted)',
    default: true,
    commands: [...FEED, 'events validate', 'events send'],
  }),
  debug: opt({
    flag: '--debug',
    help: 'debugging detail (the stack of internal errors)',
    commands: ALL,
  }),

  // Reading feeds.
  format: opt({
    flag: '--format <format>',
    help: 'payload format',
    env: 'GENSER_FORMAT',
    default: 'standard' as PayloadFormat,
    parse: p.oneOf(FORMATS),
    choices: FORMATS,
    commands: [...FEED, 'stock', 'doctor'],
  }),
  kind: opt({
    flag: '--kind <kind>',
    help: 'legacy data kind',
    env: 'GENSER_KIND',
    default: 'products' as LegacyKind,
    parse: p.oneOf(KINDS),
    choices: KINDS,
    commands: FEED,
  }),
  mapping: opt({
    flag: '--mapping <file>',
    help: 'mapping file (JSON) from your columns to product fields (events backfill: to order fields)',
    env: 'GENSER_MAPPING',
    parse: p.path,
    commands: [...FEED, 'events backfill', 'stock'],
    isPath: true,
    commandHelp: {
      validate: { help: PRODUCT_MAPPING_HELP },
      convert: { help: PRODUCT_MAPPING_HELP },
      upload: { help: PRODUCT_MAPPING_HELP },
      stock: { help: PRODUCT_MAPPING_HELP },
      'events backfill': { help: 'mapping file (JSON) from your columns to order fields' },
    },
  }),
  preset: opt({
    flag: '--preset <name|file>',
    help: 'shipped mapping for a shop export: shopify, woocommerce, magento, google-merchant, or a mapping file (docs/presets.md); events backfill: woocommerce, shopify',
    env: 'GENSER_PRESET',
    parse: p.string,
    commands: [...FEED, 'events backfill'],
    commandHelp: {
      validate: { help: FEED_PRESET_HELP },
      convert: { help: FEED_PRESET_HELP },
      upload: { help: FEED_PRESET_HELP },
      'events backfill': {
        help: 'shipped mapping for an order export: woocommerce, shopify (docs/events.md)',
      },
    },
  }),
  set: opt({
    flag: '--set <field=value>',
    help: 'fill FIELD on every row that lacks it, e.g. --set currency=KRW; dates may be relative: availability_ends=+1y (repeatable)',
    parse: p.assignments,
    repeatable: true,
    commands: FEED,
  }),
  encoding: opt({
    flag: '--encoding <name>',
    help: 'input encoding (utf8, sjis, ms949 and other usual spellings accepted)',
    env: 'GENSER_ENCODING',
    default: 'auto' as EncodingName,
    parse: p.oneOf(ENCODINGS, ENCODING_ALIASES),
    choices: ENCODINGS,
    commands: [...FEED, 'init', 'events validate', 'events send', 'events backfill', 'stock'],
  }),
  delimiter: opt({
    flag: '--delimiter <char>',
    help: 'CSV delimiter, one character (tab or \\t for a tab)',
    env: 'GENSER_DELIMITER',
    defaultText: 'sniffed from , ; tab |',
    parse: p.delimiter,
    commands: [...FEED, 'init', 'events backfill', 'stock'],
  }),
  inputType: opt({
    flag: '--input-type <type>',
    help: 'input type; needed for stdin (-)',
    env: 'GENSER_INPUT_TYPE',
    defaultText: 'from the extension',
    parse: p.oneOf(INPUT_TYPES),
    choices: INPUT_TYPES,
    commands: [...FEED, 'init', 'events validate', 'events send', 'events backfill', 'stock'],
  }),
  language: opt({
    flag: '--language <lang>',
    help: 'language of plain (unsuffixed) text columns',
    env: 'GENSER_LANGUAGE',
    default: 'ko' as Language,
    parse: p.oneOf(LANGUAGES),
    choices: LANGUAGES,
    commands: FEED,
  }),
  country: opt({
    flag: '--country <code>',
    help: 'time zone for local dates and the daily batch (KR Asia/Seoul, JP, US, ... or an IANA zone)',
    env: 'GENSER_COUNTRY',
    default: 'KR',
    parse: p.country,
    commands: [...FEED, 'init', 'sandbox', 'events backfill', 'stock'],
  }),
  strict: opt({
    flag: '--strict',
    help: 'missing recommended fields are errors, not warnings; upload and plan: a column mapped in the last complete run and absent tonight refuses the run (exit 6)',
    env: 'GENSER_STRICT',
    parse: p.bool,
    commands: FEED,
  }),
  threads: opt({
    flag: '--threads <n>',
    help: 'feed workers: 0 runs all on one thread; 1 reads here and maps and validates on a worker; 2-64 also cut CSV and NDJSON files in UTF-8, CP949 or Shift_JIS into byte ranges that the workers read (other inputs are read here and handed on in batches)',
    env: 'GENSER_THREADS',
    default: 'auto' as 'auto' | number,
    defaultText:
      'auto: none under 4 MiB; one from 4 MiB, and for stdin; one per core from 256 MiB when the first file can be cut',
    parse: p.threads(MAX_THREADS),
    commands: FEED,
  }),
  maxErrors: opt({
    flag: '--max-errors <n>',
    help: 'issues listed in detail (the summary counts all)',
    env: 'GENSER_MAX_ERRORS',
    defaultText: '20; the JSON report keeps 10,000 unless set',
    parse: p.int(0),
    commands: [...REPORTING, 'events backfill', 'stock'],
  }),
  report: opt({
    flag: '--report <file>',
    help: 'also write the JSON report to this file',
    env: 'GENSER_REPORT',
    parse: p.path,
    commands: [...REPORTING, 'stock'],
    isPath: true,
  }),
  rejects: opt({
    flag: '--rejects <file>',
    help: 'write every refused or rejected row as it was in the source, plus genser_row, genser_line, genser_problem (CSV in, CSV out; JSON/NDJSON in, NDJSON out), to fix and feed back',
    env: 'GENSER_REJECTS',
    parse: p.path,
    commands: FEED,
    isPath: true,
  }),
  reporter: opt({
    flag: '--reporter <name[=file]>',
    help: 'write a report: human (stderr), json, junit, github, html; =FILE writes it to a file (repeatable; docs/ci.md)',
    env: 'GENSER_REPORTER',
    defaultText: 'human, and github too when GITHUB_ACTIONS=true',
    parse: reporterValues,
    repeatable: true,
    commands: [...REPORTING, 'stock'],
  }),

  // convert
  output: opt({
    flag: '-o, --output <file>',
    help: 'write here instead of stdout (init: the mapping file, default genser.mapping.json)',
    parse: p.path,
    commands: ['convert', 'init', 'events validate'],
    isPath: true,
    commandHelp: {
      convert: { help: 'write here instead of stdout' },
      init: { help: 'the mapping file to write', defaultText: 'genser.mapping.json' },
      'events validate': { help: 'with --fix: write the corrected copy here' },
    },
  }),
  force: opt({
    flag: '--force',
    help: 'replace an existing mapping file',
    commands: ['init'],
    noConfig: true,
  }),
  envelope: opt({
    flag: '--envelope',
    help: 'standard: write request envelopes (one per line) instead of product nodes',
    commands: ['convert'],
  }),

  // upload (and the envelope settings convert shares)
  apiUrl: opt({
    flag: '--api-url <url>',
    help: 'product API host, e.g. https://api.example.com',
    env: 'GENSER_API_URL',
    parse: p.httpUrl,
    commands: ['upload', 'stock', 'doctor'],
  }),
  apiKeyFile: opt({
    flag: '--api-key-file <file>',
    help: 'file holding the API key (or env GENSER_API_KEY); never the key itself',
    env: 'GENSER_API_KEY_FILE',
    parse: p.path,
    commands: ['upload', 'stock', 'doctor'],
    isPath: true,
  }),
  batchSize: opt({
    flag: '--batch-size <n>',
    help: 'products per request (convert: per envelope with --envelope)',
    env: 'GENSER_BATCH_SIZE',
    default: 500,
    parse: p.int(1, 100_000),
    commands: ['convert', 'upload', 'stock'],
    commandHelp: {
      convert: { help: 'products per envelope, with --envelope' },
      upload: { help: 'products per request' },
      stock: { help: 'products per request' },
    },
  }),
  maxBatchBytes: opt({
    flag: '--max-batch-bytes <size>',
    help: 'largest request body, e.g. 5MiB, 512k',
    env: 'GENSER_MAX_BATCH_BYTES',
    default: 5 * 1024 * 1024,
    defaultText: '5MiB',
    parse: p.byteSize(1024),
    commands: ['upload', 'stock'],
  }),
  concurrency: opt({
    flag: '--concurrency <n>',
    help: 'requests in flight at most: the sender starts lower and adapts under it (docs/networks.md)',
    env: 'GENSER_CONCURRENCY',
    default: 4,
    parse: p.int(1, 64),
    commands: ['upload', 'events send', 'events backfill', 'stock'],
  }),
  retries: opt({
    flag: '--retries <n>',
    help: 'retries of a failing request',
    env: 'GENSER_RETRIES',
    default: 5,
    parse: p.int(0, 100),
    commands: ['upload', 'events send', 'events backfill', 'stock'],
  }),
  retryBase: opt({
    flag: '--retry-base <ms>',
    help: 'first backoff ceiling in ms, doubling per retry',
    env: 'GENSER_RETRY_BASE',
    default: 500,
    parse: p.int(1, 3_600_000),
    commands: ['upload', 'events send', 'events backfill', 'stock'],
  }),
  retryCap: opt({
    flag: '--retry-cap <ms>',
    help: 'largest backoff ceiling in ms',
    env: 'GENSER_RETRY_CAP',
    default: 30_000,
    parse: p.int(1, 3_600_000),
    commands: ['upload', 'events send', 'events backfill', 'stock'],
  }),
  timeout: opt({
    flag: '--timeout <seconds>',
    help: 'per-request timeout in seconds (2.5 allowed)',
    env: 'GENSER_TIMEOUT',
    default: (command: CommandName) =>
      (({ 'events send': 30, 'events backfill': 30, search: 10, doctor: 10 }) as Record<string, number>)[
        command
      ] ?? 60,
    defaultText: 'upload and stock 60, events send and backfill 30, search and doctor 10',
    parse: p.seconds,
    commands: ['upload', 'events send', 'search', 'events backfill', 'stock', 'doctor'],
  }),
  type: opt({
    flag: '--type <type>',
    help: 'standard envelope type',
    env: 'GENSER_TYPE',
    default: 'create_product' as EnvelopeType,
    parse: p.oneOf(ENVELOPE_TYPES),
    choices: ENVELOPE_TYPES,
    commands: ['convert', 'upload'],
  }),
  agent: opt({
    flag: '--agent <name>',
    help: 'agent name in the standard envelope',
    env: 'GENSER_AGENT',
    default: 'genser',
    parse: p.string,
    commands: ['convert', 'upload', 'stock'],
  }),
  path: opt({
    flag: '--path <path>',
    help: 'request path',
    env: 'GENSER_PATH',
    defaultText: '/collectors/products; legacy /searches/<kind>',
    parse: p.urlPath,
    commands: ['upload', 'stock', 'doctor'],
  }),
  maxInvalid: opt({
    flag: '--max-invalid <n|p%>',
    help: 'send nothing when more rows than this are invalid (10 or 2%)',
    env: 'GENSER_MAX_INVALID',
    parse: parseInvalidBudget,
    commands: ['upload'],
  }),
  dryRun: opt({
    flag: '--dry-run',
    help: 'do everything but send; say how many batches and bytes it would send',
    env: 'GENSER_DRY_RUN',
    parse: p.bool,
    negatable: true,
    commands: ['upload', 'events backfill', 'stock'],
  }),
  sandbox: opt({
    flag: '--sandbox',
    help: 'start an embedded sandbox on a free port and send there',
    commands: ['upload', 'events send', 'events backfill', 'stock'],
    noConfig: true,
  }),
  sandboxDb: opt({
    flag: '--sandbox-db <file>',
    help: 'with --sandbox: keep the sandbox data in this SQLite file',
    parse: p.path,
    commands: ['upload', 'stock'],
    isPath: true,
  }),

  sample: opt({
    flag: '--sample',
    help: 'upload the 25-product sample catalog shipped with genser (fixtures/catalog.csv in the package), with --sandbox or --dry-run',
    commands: ['upload'],
    noConfig: true,
  }),

  // events
  list: opt({
    flag: '--list',
    help: 'list the event types with their paths',
    commands: ['events example'],
  }),
  eventType: opt({
    flag: '--type <type>',
    help: 'treat every event as this kind',
    defaultText: 'each event\'s own "type" or "id"',
    parse: p.oneOf(EVENT_TYPES),
    choices: EVENT_TYPES,
    commands: ['events validate', 'events send'],
  }),
  newKeys: opt({
    flag: '--new-keys',
    help: 'fresh UUID v4 Idempotency-Keys instead of keys derived from each event: a re-send is stored again',
    env: 'GENSER_NEW_KEYS',
    parse: p.bool,
    commands: ['events send', 'events backfill'],
  }),
  fix: opt({
    flag: '--fix',
    help: "write a corrected copy (-o FILE) fixing the contract samples' known quirks",
    commands: ['events validate'],
    noConfig: true,
  }),
  baseUrl: opt({
    flag: '--base-url <url>',
    help: 'collection host, e.g. https://collect.example.com',
    env: 'GENSER_BASE_URL',
    parse: p.httpUrl,
    commands: ['events send', 'events backfill', 'doctor'],
  }),
  serviceKeyFile: opt({
    flag: '--service-key-file <file>',
    help: 'file holding the service key (or env GENSER_SERVICE_KEY); never the key itself',
    env: 'GENSER_SERVICE_KEY_FILE',
    parse: p.path,
    commands: ['events send', 'events backfill', 'doctor'],
    isPath: true,
  }),
  rate: opt({
    flag: '--rate <n>',
    help: 'events started per second at most; 0: no limit',
    env: 'GENSER_RATE',
    default: 0,
    parse: eventsPerSecond,
    commands: ['events backfill'],
  }),
  eventSource: opt({
    flag: '--source <url>',
    help: 'the site the events come from (their "source", contract 2.1)',
    env: 'GENSER_EVENT_SOURCE',
    defaultText: 'the mapping file\'s "source"',
    parse: p.string,
    commands: ['events backfill'],
  }),

  // search (and the sandbox's search backend)
  searchUrl: opt({
    flag: '--url <url>',
    help: "the search backend's endpoint (a bare origin means the sandbox's /client)",
    env: 'GENSER_SEARCH_URL',
    parse: p.httpUrl,
    commands: ['search', 'doctor'],
  }),
  instanceKey: opt({
    flag: '--instance-key <key>',
    help: 'the search instance key (contract 4.4; public: it sits in every shop page)',
    env: 'GENSER_INSTANCE_KEY',
    defaultText: 'sandbox: generated, printed once on stderr',
    parse: p.string,
    commands: ['sandbox', 'search', 'doctor'],
    commandHelp: {
      sandbox: { defaultText: 'generated, printed once on stderr' },
      search: { defaultText: undefined },
    },
  }),
  limit: opt({
    flag: '--limit <n>',
    help: 'products asked for',
    default: 20,
    parse: p.int(1, 100),
    commands: ['search'],
  }),

  // networks (docs/networks.md)
  proxy: opt({
    flag: '--proxy <url>',
    help: 'send every request through this HTTP proxy (http://[user:password@]host:port); NO_PROXY still applies; credentials are never printed',
    env: 'GENSER_PROXY',
    defaultText: 'HTTPS_PROXY / HTTP_PROXY / ALL_PROXY, as curl reads them',
    parse: p.proxyUrl,
    commands: NETWORK,
  }),
  caFile: opt({
    flag: '--ca-file <file>',
    help: "PEM certificates to trust besides Node's own (a company CA); NODE_EXTRA_CA_CERTS works too",
    env: 'GENSER_CA_FILE',
    parse: p.path,
    commands: NETWORK,
    isPath: true,
  }),
  compress: opt({
    flag: '--compress <method>',
    help: 'compress request bodies (Content-Encoding: gzip); only for a service that accepts it',
    env: 'GENSER_COMPRESS',
    default: 'none' as 'none' | 'gzip',
    parse: p.oneOf(['none', 'gzip'] as const),
    choices: ['none', 'gzip'],
    commands: ['upload', 'stock', 'events send', 'events backfill'],
  }),

  // SQLite (the sandbox's store, the upload state)
  sqlite: opt({
    flag: '--sqlite <driver>',
    help: "SQLite driver: auto (Node's node:sqlite where it has it, else better-sqlite3), node, better-sqlite3",
    env: 'GENSER_SQLITE',
    default: 'auto' as BackendChoice,
    parse: p.oneOf(BACKEND_CHOICES),
    choices: BACKEND_CHOICES,
    commands: ['upload', 'sandbox', 'events send', 'stock', 'doctor'],
  }),

  // sandbox
  port: opt({
    flag: '--port <n>',
    help: 'port to listen on; 0 picks a free one (the URL is the only line on stdout)',
    env: 'GENSER_SANDBOX_PORT',
    default: SANDBOX_DEFAULTS.port as number,
    parse: p.int(0, 65535),
    commands: ['sandbox'],
  }),
  host: opt({
    flag: '--host <address>',
    help: 'address to bind',
    env: 'GENSER_SANDBOX_HOST',
    default: SANDBOX_DEFAULTS.host as string,
    parse: p.string,
    commands: ['sandbox'],
  }),
  db: opt({
    flag: '--db <file>',
    help: 'SQLite file (WAL) that keeps data and keys across restarts',
    env: 'GENSER_SANDBOX_DB',
    defaultText: 'in memory',
    parse: p.path,
    commands: ['sandbox'],
    isPath: true,
  }),
  pidFile: opt({
    flag: '--pid-file <file>',
    help: 'write the process id here once listening (removed at exit), so a script can stop it',
    parse: p.path,
    commands: ['sandbox'],
    isPath: true,
  }),
  apiKey: opt({
    flag: '--api-key <key>',
    help: "the sandbox's test key for apiKey / x-api-key (a flag is fine for test keys)",
    env: 'GENSER_API_KEY',
    defaultText: 'generated, printed once on stderr',
    parse: p.string,
    commands: ['sandbox'],
    secret: true,
    noConfig: true,
  }),
  serviceKey: opt({
    flag: '--service-key <key>',
    help: "the sandbox's test key for serviceKey",
    env: 'GENSER_SERVICE_KEY',
    defaultText: 'generated, printed once on stderr',
    parse: p.string,
    commands: ['sandbox'],
    secret: true,
    noConfig: true,
  }),
  adminEmail: opt({
    flag: '--admin-email <address>',
    help: 'where batch completion notices go',
    env: 'GENSER_SANDBOX_ADMIN_EMAIL',
    default: SANDBOX_DEFAULTS.adminEmail as string,
    parse: p.string,
    commands: ['sandbox'],
  }),
  maxBody: opt({
    flag: '--max-body <size>',
    help: 'largest request body, e.g. 10MiB, 512k (413 above it)',
    default: SANDBOX_DEFAULTS.maxBodyBytes as number,
    defaultText: '10MiB',
    parse: p.byteSize(),
    commands: ['sandbox'],
  }),
  idempotencyTtl: opt({
    flag: '--idempotency-ttl <duration>',
    help: 'how long Idempotency-Keys are remembered, e.g. 24h, 30m',
    default: SANDBOX_DEFAULTS.idempotencyTtlMs as number,
    defaultText: '24h',
    parse: p.duration,
    commands: ['sandbox'],
  }),
  legacyProductsPath: opt({
    flag: '--legacy-products-path <path>',
    help: 'legacy products path',
    default: SANDBOX_DEFAULTS.legacyPaths.products as string,
    parse: p.urlPath,
    commands: ['sandbox'],
  }),
  legacyContentsPath: opt({
    flag: '--legacy-contents-path <path>',
    help: 'legacy contents path',
    default: SANDBOX_DEFAULTS.legacyPaths.contents as string,
    parse: p.urlPath,
    commands: ['sandbox'],
  }),
  legacyFiltersPath: opt({
    flag: '--legacy-filters-path <path>',
    help: 'legacy filters path',
    default: SANDBOX_DEFAULTS.legacyPaths.filters as string,
    parse: p.urlPath,
    commands: ['sandbox'],
  }),
  failRate: opt({
    flag: '--fail-rate <r>',
    help: 'fault: answer this share of requests with --fail-status (0-1)',
    parse: p.rate,
    commands: ['sandbox'],
  }),
  failStatus: opt({
    flag: '--fail-status <code>',
    help: 'fault: the status of failed requests',
    default: 503 as 500 | 503,
    parse: (raw, from) => (p.oneOf(['500', '503'] as const)(raw, from) === '500' ? 500 : 503),
    choices: ['500', '503'],
    commands: ['sandbox'],
  }),
  latency: opt({
    flag: '--latency <ms>',
    help: 'fault: delay each request, e.g. 200 or 100-400',
    parse: p.latency,
    commands: ['sandbox'],
  }),
  resetRate: opt({
    flag: '--reset-rate <r>',
    help: 'fault: drop the connection for this share of requests (0-1)',
    parse: p.rate,
    commands: ['sandbox'],
  }),
  rateLimit: opt({
    flag: '--rate-limit <n>',
    help: 'fault: at most n requests per second, then 429 with Retry-After',
    parse: p.int(1),
    commands: ['sandbox'],
  }),
  lostRate: opt({
    flag: '--lost-rate <r>',
    help: 'fault: process and store, then answer 500, for this share of requests (0-1)',
    parse: p.rate,
    commands: ['sandbox'],
  }),
  seed: opt({
    flag: '--seed <n>',
    help: 'seed for the fault dice, for repeatable runs',
    parse: p.int(0, 2 ** 32 - 1),
    commands: ['sandbox'],
  }),

  // upload state (nightly)
  state: opt({
    flag: '--state <dir>',
    help: 'keep upload state (what the service accepted, the run lock) in this directory, or in the PostgreSQL database of a postgres://user@host:5432/db URL (also GENSER_STATE_URL; the password from PGPASSWORD or ~/.pgpass); --sandbox uses none unless given',
    env: 'GENSER_STATE_DIR',
    defaultText: '$XDG_STATE_HOME/genser, else ~/.local/state/genser',
    parse: p.stateLocation,
    commands: ['upload', 'runs', 'stock', 'doctor'],
    isPath: true,
    commandHelp: { runs: { help: 'the upload state directory (or postgres:// URL) whose runs to list' } },
  }),
  // alerts and monitoring for unattended runs (docs/nightly.md, "Alerts and monitoring")
  notify: opt({
    flag: '--notify <url>',
    help: 'POST a JSON summary of the run (with a `text` field for Slack or Teams incoming webhooks) to this URL; a failing webhook never changes the exit code',
    env: 'GENSER_NOTIFY_URL',
    parse: p.httpUrl,
    secret: true,
    commands: ['upload', 'stock'],
  }),
  notifyOn: opt({
    flag: '--notify-on <when>',
    help: 'when to notify: failure (any exit code but 0) or always',
    env: 'GENSER_NOTIFY_ON',
    default: 'failure' as const,
    parse: p.oneOf(NOTIFY_ON),
    choices: NOTIFY_ON,
    commands: ['upload', 'stock'],
  }),
  ping: opt({
    flag: '--ping <url>',
    help: 'a heartbeat URL in the style of healthchecks.io: URL/start at the start, URL on success, URL/fail on failure',
    env: 'GENSER_PING_URL',
    parse: p.httpUrl,
    secret: true,
    commands: ['upload', 'stock'],
  }),
  statusFile: opt({
    flag: '--status-file <file>',
    help: "write the run's outcome to FILE in the Prometheus textfile-collector format (genser_last_run_success, timestamps, rows by outcome), atomically",
    env: 'GENSER_STATUS_FILE',
    parse: p.path,
    isPath: true,
    commands: ['upload', 'stock'],
  }),
  full: opt({
    flag: '--full',
    help: 'send every valid product, not only the new and changed ones the state knows of',
    env: 'GENSER_FULL',
    parse: p.bool,
    commands: ['upload'],
  }),
  missing: opt({
    flag: '--missing <mode>',
    help: 'products accepted before and gone from this complete feed: ignore them, or send them as out of stock',
    env: 'GENSER_MISSING',
    default: 'ignore' as 'ignore' | 'out-of-stock',
    parse: p.oneOf(['ignore', 'out-of-stock'] as const),
    choices: ['ignore', 'out-of-stock'],
    commands: ['upload'],
  }),
  missingAfter: opt({
    flag: '--missing-after <k>',
    help: 'with --missing out-of-stock, mark a product out of stock only once it has been missing from k complete runs in a row (a removal delay)',
    env: 'GENSER_MISSING_AFTER',
    default: 1,
    parse: p.int(1),
    commands: ['upload'],
  }),
  maxChange: opt({
    flag: '--max-change <n|p%>',
    help: 'a guard: send nothing (exit 6) when more known products than this change or (with --missing out-of-stock) are gone',
    env: 'GENSER_MAX_CHANGE',
    default: { kind: 'percent', max: 20 } as InvalidBudget,
    defaultText: '20%',
    parse: parseInvalidBudget,
    commands: ['upload'],
  }),
  minRows: opt({
    flag: '--min-rows <n>',
    help: 'a guard: send nothing (exit 6) when the feed has fewer rows than this (1: an empty feed; 0: off)',
    env: 'GENSER_MIN_ROWS',
    default: 1,
    parse: p.int(0),
    commands: ['upload'],
  }),
  minShare: opt({
    flag: '--min-share <p%>',
    help: "a guard: send nothing (exit 6) when the feed has fewer rows than this share of the last complete run's (a truncated export; 0%: off)",
    env: 'GENSER_MIN_SHARE',
    default: 50,
    defaultText: '50%',
    parse: p.percent,
    commands: ['upload'],
  }),
  priceShock: opt({
    flag: '--price-shock <P%:Q%|off>',
    help: 'a guard: send nothing (exit 6) when more than P% of the known products change price by more than Q%',
    env: 'GENSER_PRICE_SHOCK',
    default: { share: 20, move: 50 } as PriceShock | 'off',
    defaultText: '20%:50%',
    parse: parsePriceShock,
    commands: ['upload'],
  }),
  onGuard: opt({
    flag: '--on-guard <action>',
    help: 'when a guard trips: refuse the run (send nothing, exit 6), or hold-removals (send the creates and updates, hold back every out-of-stock mark)',
    env: 'GENSER_ON_GUARD',
    default: 'refuse' as OnGuard,
    parse: p.oneOf(ON_GUARD),
    choices: ON_GUARD,
    commands: ['upload'],
  }),
  retryFailed: opt({
    flag: '--retry-failed',
    help: "send again only the rows the target's last run did not get accepted, from their saved payloads (no feed)",
    commands: ['upload'],
    noConfig: true,
  }),
  shard: opt({
    flag: '--shard <I/N>',
    help: "upload only shard I of N: the rows whose SKU's stable hash falls in it, with that shard's own state (runs: that shard's history; stock: that shard's stock rows)",
    env: 'GENSER_SHARD',
    parse: parseShard,
    commands: ['upload', 'runs', 'stock'],
    commandHelp: {
      upload: {
        help: "upload only shard I of N: the rows whose SKU's stable hash falls in it, with that shard's own state",
      },
      runs: { help: "only shard I of N's runs" },
      stock: { help: "send only shard I of N's stock rows (the SKUs whose stable hash falls in it)" },
    },
  }),
  shardCount: opt({
    flag: '--shard-count <n>',
    help: "split the feed in n shards and take this run's from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job; shard = index + 1)",
    env: 'GENSER_SHARD_COUNT',
    parse: parseShardCount,
    commands: ['upload', 'stock'],
  }),
} as const;

export type OptionName = keyof typeof OPTIONS;

/** The parser's result; a switch (no parser) is a boolean. */
type ValueOf<S> = S extends { parse: p.Parser<infer T> } ? T : boolean;
type HasDefault<S> = S extends { default: unknown } ? true : false;

/** The resolved value of every option: those with a default are always set. */
export type Settings = {
  [K in OptionName]: HasDefault<(typeof OPTIONS)[K]> extends true
    ? ValueOf<(typeof OPTIONS)[K]>
    : ValueOf<(typeof OPTIONS)[K]> | undefined;
};

/** `genser plan` takes every option `upload` takes: a cron line's `upload` becomes `plan` as it is. */
const SAME_OPTIONS: Partial<Record<CommandName, CommandName>> = { plan: 'upload' };
/** What such a command takes only to refuse it, with a hint (src/commands/plan.ts). */
const REFUSED: Partial<Record<CommandName, readonly OptionName[]>> = { plan: ['rejects', 'retryFailed'] };

/** The commands that take option `name`: its own list, then those taking another's options (plan). */
export function commandsTaking(name: OptionName): CommandName[] {
  const own = OPTIONS[name].commands as readonly CommandName[];
  const alike = (Object.keys(SAME_OPTIONS) as CommandName[]).filter((c) => {
    const as = SAME_OPTIONS[c];
    return as !== undefined && own.includes(as) && !own.includes(c) && !REFUSED[c]?.includes(name);
  });
  return [...own, ...alike];
}

export function optionsOf(command: CommandName): OptionName[] {
  const as = SAME_OPTIONS[command] ?? command;
  return (Object.keys(OPTIONS) as OptionName[]).filter((name) =>
    (OPTIONS[name].commands as readonly CommandName[]).includes(as),
  );
}

/** The commander attribute of a flag: `--batch-size <n>` -> batchSize, `--no-warnings` -> warnings. */
export function attributeOf(flag: string): string {
  const long = /--(?:no-)?([a-z0-9-]+)/.exec(flag)?.[1] ?? flag;
  return long.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `--batch-size` from `--batch-size <n>`. */
export function longFlag(flag: string): string {
  return /--[a-z0-9-]+/.exec(flag)?.[0] ?? flag;
}
