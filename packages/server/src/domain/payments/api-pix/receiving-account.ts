/**
 * The store's receiving account at its PSP: every Pix Automático cycle charge (`PUT /cobr/{txid}`,
 * CobRSolicitada) must name it as `recebedor` (DadosBancariosRecebedor of the API Pix 2.9.0). Not a
 * secret; kept with the PSP settings.
 */

export const ACCOUNT_TYPES = ['corrente', 'poupanca', 'pagamento'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export interface ReceivingAccount {
  /** Agência, 1 to 4 digits; null when the PSP's account has none. */
  branch: string | null;
  /** Conta: digits, optionally `-` and a check digit (0-9 or X), at most 20 characters. */
  number: string;
  type: AccountType;
}

/** DadosBancariosRecebedor: what a cobr's `recebedor` carries. */
export interface DadosBancariosRecebedor {
  conta: string;
  tipoConta: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO';
  agencia?: string;
}

/** The standard's `conta` is at most 20 characters, its `agencia` at most 4. */
const ACCOUNT_NUMBER = /^(?=.{1,20}$)\d+(-[\dX])?$/;
const BRANCH = /^\d{1,4}$/;

/** Which entry was refused: the CLI prints the message, the dashboard its own words for the field. */
export type AccountField = 'account' | 'account_type' | 'branch';

export class ReceivingAccountError extends Error {
  constructor(
    readonly field: AccountField,
    message: string,
  ) {
    super(message);
    this.name = 'ReceivingAccountError';
  }
}

/** What the operator typed (CLI options or the dashboard's form); blank means not given. */
export interface ReceivingAccountInput {
  account?: string | undefined;
  accountType?: string | undefined;
  branch?: string | undefined;
}

const given = (value: string | undefined) => (value?.trim() ? value.trim() : null);

/**
 * Checks a receiving account as typed: the account and its type come together (neither: no account),
 * the branch is optional. Throws a ReceivingAccountError naming the CLI option.
 */
export function checkReceivingAccount(input: ReceivingAccountInput): ReceivingAccount | null {
  const number = given(input.account)?.toUpperCase() ?? null;
  const type = given(input.accountType)?.toLowerCase() ?? null;
  const branch = given(input.branch);
  if (number === null && type === null) {
    if (branch !== null)
      throw new ReceivingAccountError('account', '--branch needs --account and --account-type');
    return null;
  }
  if (number === null) throw new ReceivingAccountError('account', '--account-type needs --account');
  if (type === null) throw new ReceivingAccountError('account_type', '--account needs --account-type');
  if (!ACCOUNT_NUMBER.test(number)) {
    throw new ReceivingAccountError(
      'account',
      `--account must be 1 to 20 characters: digits, optionally "-" and a check digit (12345-6), got "${number}"`,
    );
  }
  if (!(ACCOUNT_TYPES as readonly string[]).includes(type)) {
    throw new ReceivingAccountError(
      'account_type',
      `--account-type must be one of ${ACCOUNT_TYPES.join(', ')}, got "${type}"`,
    );
  }
  if (branch !== null && !BRANCH.test(branch)) {
    throw new ReceivingAccountError(
      'branch',
      `--branch must be 1 to 4 digits (the agência), got "${branch}"`,
    );
  }
  return { branch, number, type: type as AccountType };
}

/** The stored columns (all null: no account). */
export interface ReceivingAccountColumns {
  account_branch: string | null;
  account_number: string | null;
  account_type: AccountType | null;
}

export function accountColumns(account: ReceivingAccount | null): ReceivingAccountColumns {
  return {
    account_branch: account?.branch ?? null,
    account_number: account?.number ?? null,
    account_type: account?.type ?? null,
  };
}

export function accountOfColumns(row: ReceivingAccountColumns): ReceivingAccount | null {
  if (row.account_number === null || row.account_type === null) return null;
  return { branch: row.account_branch, number: row.account_number, type: row.account_type };
}

export function recebedorOf(account: ReceivingAccount): DadosBancariosRecebedor {
  return {
    conta: account.number,
    tipoConta: account.type.toUpperCase() as DadosBancariosRecebedor['tipoConta'],
    ...(account.branch !== null && { agencia: account.branch }),
  };
}
