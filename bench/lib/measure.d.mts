export interface Measured {
  ms: number;
  maxRssKiB: number | null;
  cpuMs: number | null;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** With `sampleEveryMs`: the command's RSS and CPU so far, ms after the start. */
  samples: ProcessSample[];
  stdout: string;
  stderr: string;
}
export interface ProcessSample {
  ms: number;
  rssKiB: number;
  cpuMs: number;
}
export declare const GNU_TIME: string;
export declare function hasGnuTime(): boolean;
export declare function parseGnuTimeMaxRss(text: string): number | null;
export declare function parseGnuTimeCpuMs(text: string): number | null;
export declare function measure(
  command: string,
  args: string[],
  opts?: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    stdout?: 'pipe' | 'ignore';
    timeoutMs?: number;
    useGnuTime?: boolean;
    sampleEveryMs?: number;
  },
): Promise<Measured>;
export declare function sampleProcess(pid: number): { rssKiB: number; cpuMs: number } | null;
export declare function median(values: (number | null | undefined)[]): number | null;
export declare function max(values: (number | null | undefined)[]): number | null;
export declare function firstLine(text: string): string;
/** Copies a state directory and flushes the copy to disk (nothing left to write back while a command is timed). */
export declare function copyFlushed(from: string, to: string): void;
