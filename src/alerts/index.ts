import type { Logger } from '../shared/logger.js';
import { notifyBody, type RunReport, reportText } from './run-report.js';
import type { AlertSettings } from './settings.js';
import { statusFileText, writeStatusFile } from './status-file.js';
import { type PostSettings, pingUrl, post } from './webhook.js';

export { notifyBody, type ProblemLine, type RunReport, reportText } from './run-report.js';
export { type AlertSettings, NOTIFY_ON } from './settings.js';
export { labelValue, statusFileText } from './status-file.js';
export { pingUrl } from './webhook.js';

/**
 * What an unattended run tells the outside at its start and its end. None of it may change the
 * run's outcome: a webhook that fails, a ping that times out or a status file that cannot be
 * written is one warning on stderr, and the exit code stays the run's own.
 */
export class RunAlerts {
  constructor(
    private readonly settings: AlertSettings,
    private readonly http: PostSettings,
    private readonly log: Logger,
  ) {}

  get active(): boolean {
    const s = this.settings;
    return s.notify !== undefined || s.ping !== undefined || s.statusFile !== undefined;
  }

  async started(): Promise<void> {
    if (this.settings.ping === undefined) return;
    const sent = await post(pingUrl(this.settings.ping, 'start'), '', 'text/plain', this.http);
    if (!sent.ok) this.log.warn(`the start ping was not delivered: ${sent.message}`);
  }

  async finished(report: RunReport): Promise<void> {
    const { notify, notifyOn, ping, statusFile } = this.settings;
    const failed = report.exitCode !== 0;
    const jobs: Array<Promise<void>> = [];
    if (notify !== undefined && (failed || notifyOn === 'always')) {
      const body = JSON.stringify(notifyBody(report));
      jobs.push(this.deliver('the notification', post(notify, body, 'application/json', this.http)));
    }
    if (ping !== undefined) {
      const url = pingUrl(ping, failed ? 'fail' : 'success');
      jobs.push(
        this.deliver('the end ping', post(url, reportText(report), 'text/plain; charset=utf-8', this.http)),
      );
    }
    if (statusFile !== undefined) {
      try {
        writeStatusFile(statusFile, statusFileText(report));
      } catch (err) {
        this.log.warn(`the status file ${statusFile} was not written: ${(err as Error).message}`);
      }
    }
    await Promise.all(jobs);
  }

  private async deliver(what: string, sent: Promise<{ ok: boolean; message?: string }>): Promise<void> {
    const result = await sent;
    if (!result.ok)
      this.log.warn(`${what} was not delivered: ${result.message}; the run's exit code is unchanged`);
  }
}
