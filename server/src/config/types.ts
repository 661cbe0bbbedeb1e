/** What the server needs to run: where to listen and which ensembles to serve. */
export interface EnsembleConfig {
  name: string;
  /** host:port,host:port[/chroot] */
  connectionString: string;
  /** Digest credentials; they never leave the server. */
  auth?: { scheme: 'digest'; credential: string }[];
  /** Members for 4lw/AdminServer polling when they differ from the connection string. */
  members?: { host: string; clientPort: number; adminPort?: number }[];
  sessionTimeoutMs?: number;
}

export interface KeeperOptions {
  host: string;
  port: number;
  ensembles: EnsembleConfig[];
  /** Built web app to serve (web/dist); omitted in API-only tests. */
  webDist?: string;
}
