import type { OptionName } from './option-table.js';

/**
 * The two secret keys genser sends (the product API key, the event service key) and where each
 * may come from: the `--<name>-file` flag, the environment variable, the `<ENV>_FILE` variable or
 * a config file's `<name>File`. Never a flag value (flags show in `ps` and shell history), and
 * never a config file's `<name>` (a config file is shared, copied and committed).
 */
export interface KeySpec {
  /** For messages: "API key", "service key". */
  label: string;
  /** The option naming the key file (`--api-key-file`, env `GENSER_API_KEY_FILE`, config `apiKeyFile`). */
  fileOption: OptionName;
  /** The variable holding the key itself, e.g. `GENSER_API_KEY`. */
  env: string;
  /** The config key that would hold the key itself, refused: `apiKey`. */
  configValue: string;
}

export const API_KEY: KeySpec = {
  label: 'API key',
  fileOption: 'apiKeyFile',
  env: 'GENSER_API_KEY',
  configValue: 'apiKey',
};

export const SERVICE_KEY: KeySpec = {
  label: 'service key',
  fileOption: 'serviceKeyFile',
  env: 'GENSER_SERVICE_KEY',
  configValue: 'serviceKey',
};

export const KEY_SPECS: readonly KeySpec[] = [API_KEY, SERVICE_KEY];
