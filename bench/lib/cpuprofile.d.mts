export interface FunctionTime {
  key: string;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
}
export interface ProfileSummary {
  totalMs: number;
  /** Sampled time that was not idle. */
  busyMs: number;
  /** The thread's life, idle included. */
  wallMs: number;
  functions: FunctionTime[];
  files: { file: string; selfMs: number; selfPct: number }[];
}
export declare function locationOf(url: string, root?: string): string;
export declare function summarizeProfile(profile: unknown, opts?: { root?: string }): ProfileSummary;
export declare function topByTotal(
  summary: ProfileSummary,
  n?: number,
  filter?: (f: FunctionTime) => boolean,
): FunctionTime[];
export declare function byDirectory(
  summary: ProfileSummary,
): { dir: string; selfMs: number; selfPct: number }[];
export declare function threadOfProfile(fileName: string): number | undefined;
