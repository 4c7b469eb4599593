// Types for bench/generate.mjs (plain ESM so the benchmark needs no build step).
export declare const GENERATOR_VERSION: number;
export declare const DEFAULT_SEED: number;
export declare const DATA_DIR: string;
export declare const INVALID_EVERY: number;
export declare const INVALID_OFFSET: number;
export declare const INVALID_KINDS: readonly string[];
export declare const COLUMNS: readonly string[];
export declare const SHORT_COLUMNS: readonly string[];
export type CatalogShape = 'long' | 'short';
export declare const SHAPES: readonly CatalogShape[];
export declare function columnsOf(shape?: CatalogShape): readonly string[];

export interface Random {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(list: readonly T[]): T;
}
export declare function createRandom(seed: number): Random;
export declare function ean13(body12: string): string;
export declare function isValidEan13(code: string): boolean;
export declare function csvField(value: string): string;
export declare function createRowGenerator(seed?: number): (n: number) => string[];
export declare function createShortRowGenerator(seed?: number): (n: number) => string[];
export declare function isInvalidRow(n: number): boolean;
export declare function invalidCount(rows: number): number;

export interface CatalogMeta {
  generatorVersion: number;
  seed: number;
  /** Absent in sidecars written before the short shape: long. */
  shape?: CatalogShape;
  rows: number;
  invalidRows: number;
  invalidEvery: number;
  columns: number;
  bytes: number;
}
export declare function writeCatalog(
  file: string,
  opts: { rows: number; seed?: number; shape?: CatalogShape },
): Promise<CatalogMeta>;
export declare function catalogPath(rows: number, dir?: string, shape?: CatalogShape): string;
export declare function readCatalogMeta(
  file: string,
  seed?: number,
  shape?: CatalogShape,
): CatalogMeta | null;
export declare function ensureCatalog(
  rows: number,
  opts?: {
    dir?: string;
    seed?: number;
    shape?: CatalogShape;
    force?: boolean;
    log?: (line: string) => void;
  },
): Promise<{ file: string; meta: CatalogMeta; generated: boolean }>;
