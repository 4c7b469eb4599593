export declare const MiB: number;
export interface TargetResult {
  id: string;
  figure: string;
  target: string;
  value: number | null;
  shown: string;
  status: 'pass' | 'FAIL' | 'n/a';
}
export declare function evaluateTargets(results: Record<string, unknown>): TargetResult[];
export declare function renderResults(results: Record<string, unknown>): string;
export declare const START: string;
export declare const END: string;
export declare function replaceMarked(doc: string, content: string): string;
export declare function formatJson(value: unknown): string;
