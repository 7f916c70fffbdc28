import { Command } from 'commander';

type Register = (program: Command) => void;

/**
 * Each command's module, by the names it registers, in the order help lists them. A command loads
 * only its own module: `serve` and `worker` bring the whole HTTP app (most of a second of start-up),
 * which `stores list` or `pix-provider check` do not need. Help, or a name no command has, loads all.
 */
const COMMANDS: [names: string[], load: () => Promise<Register>][] = [
  [['serve'], async () => (await import('./serve-command.js')).registerServeCommand],
  [['worker'], async () => (await import('./worker-command.js')).registerWorkerCommand],
  [['migrate'], async () => (await import('./migrate-command.js')).registerMigrateCommand],
  [['stores'], async () => (await import('./stores-command.js')).registerStoresCommand],
  [['keys'], async () => (await import('./keys-command.js')).registerKeysCommand],
  [['users'], async () => (await import('./users-command.js')).registerUsersCommand],
  [['pix-provider'], async () => (await import('./pix-provider-command.js')).registerPixProviderCommand],
  [['card-provider'], async () => (await import('./card-provider-command.js')).registerCardProviderCommand],
  [['prune', 'backup'], async () => (await import('./operations-command.js')).registerOperationsCommands],
  [['subscriptions'], async () => (await import('./subscriptions-command.js')).registerSubscriptionsCommand],
];

/**
 * Runs the CLI on `argv` (as `process.argv`: node, script, command, …). main.ts runs it for the
 * binary; the tests run the same function in their own process, since a fresh Node process per
 * command costs seconds on a busy machine. A new program each call: commander keeps parsed state.
 */
export async function runProgram(argv: string[]): Promise<void> {
  const program = new Command('storefront')
    .description('Storefront: a self-hostable commerce API (configuration comes from the environment)')
    .showHelpAfterError();
  const named = argv[2] ?? '';
  const own = COMMANDS.filter(([names]) => names.includes(named));
  for (const [, load] of own.length > 0 ? own : COMMANDS) (await load())(program);
  await program.parseAsync(argv);
}
