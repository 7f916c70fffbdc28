import { BrCodeError } from '../../../platform/brcode/index.js';
import type { BrCode } from '../../../platform/brcode/index.js';
import type { ReceivedPix } from '../pix-provider.js';
import { centsOf, valorOf } from './api-pix-types.js';
import type { Devedor, PixRecebido } from './api-pix-types.js';
import { ProviderError } from '../provider-errors.js';

/*
 * The checks every answer of a PSP goes through before it changes anything, shared by immediate
 * charges (`cob`) and Pix Automático (`rec`, `cobr`).
 */

/** What a PSP answers a PUT for a txid it already holds: 400, or 409 / 422 at some. */
export const TXID_TAKEN_STATUSES = new Set([400, 409, 422]);

/** At most `max` characters (code points, as the standard's JSON Schema counts them). */
export function cutTo(text: string, max: number): string {
  return [...text].slice(0, max).join('');
}

/** `devedor` from a bare CPF (11 digits) or CNPJ (14 characters) and a name. */
export function devedorOf(document: string, nome: string): Devedor {
  return document.length === 11 ? { cpf: document, nome } : { cnpj: document, nome };
}

/**
 * The received Pix that pays `amountCents` for `txid`, from a charge the PSP shows settled for that
 * amount; null when none does.
 */
export function paymentAmong(
  pix: PixRecebido[] | undefined,
  txid: string,
  amountCents: number,
): ReceivedPix | null {
  const item = (pix ?? []).find(
    (received) =>
      centsOf(received.valor) === amountCents && (received.txid === undefined || received.txid === txid),
  );
  if (!item || typeof item.endToEndId !== 'string' || Number.isNaN(Date.parse(item.horario))) return null;
  return { endToEndId: item.endToEndId, txid, amountCents, paidAt: new Date(item.horario).toISOString() };
}

/**
 * The payer scans what we show: `parse` (a BR Code parser, CRC included) must accept it, for exactly
 * this amount. `what` names the code in the error (`a pixCopiaECola`, `a composite code`).
 */
export function checkedCode<T extends BrCode>(
  parse: (payload: string) => T,
  payload: string,
  amountCents: number,
  what: string,
): T {
  let code: T;
  try {
    code = parse(payload);
  } catch (error) {
    const reason = error instanceof BrCodeError ? error.message : String(error);
    throw new ProviderError(`The PSP sent ${what} that is not a valid BR Code: ${reason}.`);
  }
  if (code.amount === undefined || Math.round(code.amount * 100) !== amountCents) {
    throw new ProviderError(
      `The PSP sent ${what} for ${code.amount ?? 'an open'} amount instead of ${valorOf(amountCents)}.`,
    );
  }
  return code;
}
