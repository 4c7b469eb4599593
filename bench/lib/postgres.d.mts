export interface Cluster {
  /** A new database (a copy of the database named `template` when given): its URL. */
  database(template?: string): Promise<string>;
  stop(): Promise<void>;
}
export declare function postgresBin(): string | undefined;
export declare function startCluster(): Promise<Cluster>;
