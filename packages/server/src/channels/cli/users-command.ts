import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { inviteUrl } from '../../domain/accounts/invites.js';
import { hashPassword, passwordLengthProblem } from '../../domain/accounts/passwords.js';
import { isRole, ROLE_LABELS, ROLES } from '../../domain/accounts/roles.js';
import { recordAudit } from '../../domain/accounts/audit.js';
import {
  insertPasswordReset,
  passwordResetUrl,
  replacePassword,
} from '../../domain/accounts/password-resets.js';
import { resetTwoStep } from '../../domain/accounts/two-step-reset.js';
import { findUserByEmail, membershipsOf } from '../../domain/accounts/users.js';
import type { Role } from '../../domain/accounts/roles.js';
import { addMember, listMembers, removeMember, renewInvite, TeamError } from '../../domain/accounts/team.js';
import { findStore } from '../../domain/stores/stores.js';
import { CLI, print, withDatabase } from './context.js';
import { fail } from '../server/fail.js';

/** The first line of the file, without its line ending: `echo secret > file` works. */
function passwordFromFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return fail(`--password-file: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  const problem = passwordLengthProblem(password);
  if (problem) fail(`--password-file: the password ${problem}`);
  return password;
}

async function orFailOnTeamError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof TeamError) fail(error.message);
    throw error;
  }
}

export function registerUsersCommand(program: Command): void {
  const users = program.command('users').description("manage the people of a store's dashboard");

  users
    .command('create')
    .description('add a person to a store, with a password from a file or an invite link')
    .requiredOption('--store <store_id>', 'the store')
    .requiredOption('--email <email>', "the person's e-mail (their login)")
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--password-file <path>', "a file whose first line is the person's password")
    .option('--invite', 'make an invite link (72 hours, used once) where the person sets a password')
    .option('--json', 'print one JSON object')
    .action(
      async (options: {
        store: string;
        email: string;
        role: string;
        passwordFile?: string;
        invite?: boolean;
        json?: boolean;
      }) => {
        if (!isRole(options.role)) fail(`--role must be one of ${ROLES.join(', ')}, got "${options.role}"`);
        if ((options.passwordFile === undefined) === !options.invite) {
          fail('give exactly one of --password-file <path> and --invite');
        }
        const passwordHash =
          options.passwordFile === undefined
            ? undefined
            : await hashPassword(passwordFromFile(options.passwordFile));
        await withDatabase(async ({ kysely }, config) => {
          if (!(await findStore(kysely, options.store))) fail(`no store with id ${options.store}`);
          const added = await orFailOnTeamError(
            addMember(
              kysely,
              {
                storeId: options.store,
                email: options.email,
                role: options.role as Role,
                ...(passwordHash !== undefined && { passwordHash }),
                invite: !!options.invite,
              },
              (trx, added) =>
                recordAudit(
                  trx,
                  added.store_id,
                  CLI,
                  options.invite ? 'member_invited' : 'member_added',
                  `${added.email} (${ROLE_LABELS[added.role]})`,
                ),
            ),
          );
          // The operator's links always set a missing password: the field says nothing here.
          const { inviteToken, linkSetsPassword: _, ...member } = added;
          const out: typeof member & { invite_url?: string } = inviteToken
            ? { ...member, invite_url: inviteUrl(config.publicUrl, inviteToken) }
            : member;
          const human = out.invite_url
            ? `Added ${out.email} as ${out.role}. Invite link (72 hours, used once):\n  ${out.invite_url}`
            : options.invite
              ? `Added ${out.email} as ${out.role}; they already have a password and sign in with it.`
              : `Added ${out.email} as ${out.role}.`;
          print(!!options.json, out, human);
        });
      },
    );

  users
    .command('list')
    .description("list a store's people and their roles")
    .requiredOption('--store <store_id>', 'the store')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; json?: boolean }) => {
      await withDatabase(async ({ kysely }) => {
        if (!(await findStore(kysely, options.store))) fail(`no store with id ${options.store}`);
        const data = (await listMembers(kysely, options.store)).map((m) => ({
          id: m.id,
          email: m.email,
          role: m.role,
          status: m.pending ? 'invited' : 'active',
          two_step: m.two_step,
          created_at: m.created_at,
        }));
        const human = data
          .map((m) => `${m.id}  ${m.role.padEnd(6)}  ${m.status.padEnd(7)}  ${m.email}`)
          .join('\n');
        print(!!options.json, { data }, human || 'No people.');
      });
    });

  users
    .command('resend-invite')
    .description('a new invite link for a person who has not accepted yet (the old link stops working)')
    .requiredOption('--store <store_id>', 'the store')
    .requiredOption('--email <email>', "the person's e-mail")
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; email: string; json?: boolean }) => {
      await withDatabase(async ({ kysely }, config) => {
        if (!(await findStore(kysely, options.store))) fail(`no store with id ${options.store}`);
        const renewed = await orFailOnTeamError(
          renewInvite(kysely, options.store, options.email, {
            byOperator: true,
            onWrite: (trx, renewed) =>
              recordAudit(
                trx,
                options.store,
                CLI,
                'member_invited',
                `${renewed.email} (${ROLE_LABELS[renewed.role]}, convite reenviado)`,
              ),
          }),
        );
        const out = {
          id: renewed.id,
          email: renewed.email,
          store_id: options.store,
          role: renewed.role,
          invite_url: inviteUrl(config.publicUrl, renewed.inviteToken),
        };
        const how = renewed.linkSetsPassword
          ? 'they set a password there'
          : 'they sign in with their password, then open it to accept';
        print(
          !!options.json,
          out,
          `New invite link for ${out.email} (72 hours, used once; ${how}):\n  ${out.invite_url}`,
        );
      });
    });

  users
    .command('remove')
    .description('take a person out of a store (their sessions there end at once)')
    .requiredOption('--store <store_id>', 'the store')
    .requiredOption('--email <email>', "the person's e-mail")
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; email: string; json?: boolean }) => {
      await withDatabase(async ({ kysely }) => {
        if (!(await findStore(kysely, options.store))) fail(`no store with id ${options.store}`);
        const removed = await orFailOnTeamError(
          removeMember(kysely, options.store, options.email, (trx, member) =>
            recordAudit(
              trx,
              options.store,
              CLI,
              'member_removed',
              `${member.email} (${ROLE_LABELS[member.role]})`,
            ),
          ),
        );
        print(
          !!options.json,
          { ...removed, store_id: options.store, removed: true },
          `Removed ${removed.email} from the store.`,
        );
      });
    });

  users
    .command('reset-password')
    .description(
      'let a person back in: a one-time link (1 hour) to set a new password, or set it from a file',
    )
    .requiredOption('--email <email>', "the person's e-mail")
    .option('--password-file <path>', 'a file whose first line is the new password (set at once)')
    .option('--json', 'print one JSON object')
    .action(async (options: { email: string; passwordFile?: string; json?: boolean }) => {
      const passwordHash =
        options.passwordFile === undefined
          ? null
          : await hashPassword(passwordFromFile(options.passwordFile));
      await withDatabase(async ({ kysely }, config) => {
        const user = await findUserByEmail(kysely, options.email);
        if (!user) return fail(`no person with e-mail ${options.email}`);
        if (passwordHash !== null) {
          // Every session of theirs ends, audited in each of their stores as done from the CLI.
          await kysely
            .transaction()
            .execute((trx) =>
              replacePassword(
                trx,
                user.id,
                passwordHash,
                { detail: user.email, ip: null, userId: null },
                CLI,
              ),
            );
          return print(
            !!options.json,
            { id: user.id, email: user.email, password_set: true },
            `Set the password of ${user.email}; their sessions ended.`,
          );
        }
        const url = passwordResetUrl(config.publicUrl, await insertPasswordReset(kysely, user.id));
        print(
          !!options.json,
          { id: user.id, email: user.email, reset_url: url },
          `Password reset link for ${user.email} (1 hour, used once):\n  ${url}`,
        );
      });
    });

  users
    .command('reset-2fa')
    .description('turn off the two-step verification of a person who lost their phone (their sessions end)')
    .requiredOption('--email <email>', "the person's e-mail")
    .option('--store <store_id>', 'refuse unless the person belongs to this store')
    .option('--json', 'print one JSON object')
    .action(async (options: { email: string; store?: string; json?: boolean }) => {
      await withDatabase(async ({ kysely }) => {
        const user = await findUserByEmail(kysely, options.email);
        if (!user) return fail(`no person with e-mail ${options.email}`);
        if (
          options.store &&
          !(await membershipsOf(kysely, user.id)).some((m) => m.store_id === options.store)
        )
          return fail(`${user.email} does not belong to store ${options.store}`);
        const reset = await kysely
          .transaction()
          .execute((trx) =>
            resetTwoStep(trx, user.id, { userId: null, detail: user.email, ip: null }, null, CLI),
          );
        print(
          !!options.json,
          { id: user.id, email: user.email, two_step_reset: reset },
          reset
            ? `Two-step verification of ${user.email} is off; they sign in with the password alone.`
            : `${user.email} had no two-step verification; nothing changed.`,
        );
      });
    });
}
