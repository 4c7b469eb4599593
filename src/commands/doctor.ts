import { runDoctor } from '../doctor/index.js';
import { formatDoctor } from '../doctor/report.js';
import type { PayloadFormat } from '../shared/types.js';
import type { BackendChoice } from '../storage/drivers.js';
import { stateLocation } from '../upload/state/location.js';
import type { CommandContext } from './context.js';

/** `genser doctor`: the checks of src/doctor/, printed (or one JSON document); exit the first failure's code. */
export interface DoctorCommandSettings {
  apiUrl?: string;
  format: PayloadFormat;
  path?: string;
  baseUrl?: string;
  searchUrl?: string;
  instanceKey?: string;
  sqlite: BackendChoice;
  state?: string;
  /** Seconds. */
  timeout: number;
  json?: boolean;
}

export async function runDoctorCommand(
  s: DoctorCommandSettings,
  keys: { api?: string; service?: string },
  ctx: CommandContext,
): Promise<number> {
  const at = stateLocation(s.state, ctx.env);
  const report = await runDoctor(
    {
      sqlite: s.sqlite,
      stateDir: at.kind === 'dir' ? at.dir : '',
      ...(at.kind === 'postgres' ? { stateDb: { url: at.url, shown: at.shown } } : {}),
      timeoutMs: s.timeout * 1000,
      ...(s.apiUrl ? { api: { url: s.apiUrl, format: s.format, path: s.path, key: keys.api } } : {}),
      ...(s.baseUrl ? { events: { url: s.baseUrl, key: keys.service } } : {}),
      ...(s.searchUrl ? { search: { url: s.searchUrl, instanceKey: s.instanceKey } } : {}),
    },
    ctx.network ?? { env: ctx.env },
  );
  ctx.stdout.write(s.json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctor(report));
  return report.exitCode;
}
