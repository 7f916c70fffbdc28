export { buildApp } from './app.js';
export type { AppDependencies } from './app.js';
export { loadConfig, ConfigError } from './config/config.js';
export type { Config } from './config/config.js';
export { openDatabase } from './db/database.js';
export { migrateToLatest } from './db/migrate.js';
export { startService } from './service.js';
