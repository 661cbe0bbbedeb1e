export type { AuthOptions, AuthUserConfig, EnsembleConfig, KeeperOptions, LimitsConfig } from './types.js';
export { ConfigError } from './errors.js';
export { parseConnectionString, DEFAULT_CLIENT_PORT, type ParsedConnectionString } from './connectionString.js';
export { loadFileConfig, parseFileConfig, type FileConfig } from './fileConfig.js';
export { parseStartArgs, defaultStateDir, defaultDataDir, START_USAGE, type StartPlan, type SandboxPlan, type Env } from './cli.js';
