// Apart from the senders: the option table reads NOTIFY_ON, and `genser --version` must not load
// undici for it.

/** `--notify`, `--notify-on`, `--ping`, `--status-file` (docs/nightly.md, "Before and after the run"). */
export interface AlertSettings {
  notify?: string;
  notifyOn: 'failure' | 'always';
  ping?: string;
  statusFile?: string;
}

export const NOTIFY_ON = ['failure', 'always'] as const;
