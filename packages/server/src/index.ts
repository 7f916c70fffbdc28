export { buildApp } from './channels/server/app.js';
export type { AppDependencies } from './channels/server/app.js';
export { loadConfig, ConfigError } from './platform/config/config.js';
export type { Config } from './platform/config/config.js';
export { openDatabase } from './platform/db/database.js';
export { migrateToLatest } from './platform/db/migrations/migrate.js';
export { startService } from './channels/server/service.js';
