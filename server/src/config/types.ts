/** What the server is started with (built by cli.ts, consumed by startKeeper in app.ts). */

export interface EnsembleConfig {
  /** Unique, URL-safe: it appears in Keeper's URLs and API paths. */
  name: string;
  /** `host:port,...[/chroot]`, normalised: every host has its port, no spaces. */
  connectionString: string;
  auth?: { scheme: 'digest'; credential: string }[];
  /** Members for 4lw/AdminServer polling; when absent, the hosts of the connection string. */
  members?: { host: string; clientPort: number; adminPort?: number }[];
  sessionTimeoutMs?: number;
}

export interface KeeperOptions {
  host: string;
  port: number;
  ensembles: EnsembleConfig[];
  webDist?: string;
}
