export interface FunctionTime {
  key: string;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
}
export interface ProfileSummary {
  totalMs: number;
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
