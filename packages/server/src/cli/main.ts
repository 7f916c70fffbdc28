import { Command } from 'commander';
import { registerKeysCommand } from './keys-command.js';
import { registerMigrateCommand } from './migrate-command.js';
import { registerPixProviderCommand } from './pix-provider-command.js';
import { registerOperationsCommands } from './operations-command.js';
import { registerServeCommand } from './serve-command.js';
import { registerStoresCommand } from './stores-command.js';
import { registerSubscriptionsCommand } from './subscriptions-command.js';
import { registerUsersCommand } from './users-command.js';
import { registerWorkerCommand } from './worker-command.js';

const program = new Command('storefront')
  .description('Storefront: a self-hostable commerce API (configuration comes from the environment)')
  .showHelpAfterError();

registerServeCommand(program);
registerWorkerCommand(program);
registerMigrateCommand(program);
registerStoresCommand(program);
registerKeysCommand(program);
registerUsersCommand(program);
registerPixProviderCommand(program);
registerOperationsCommands(program);
registerSubscriptionsCommand(program);

await program.parseAsync(process.argv);
