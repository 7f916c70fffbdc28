import type { Recorrencia } from '../kernel/recurrence.js';
import { addDays, dayStartUtc } from '../../platform/values/local-date.js';

/*
 * Subscription periods are calendar days (`YYYY-MM-DD`), as Pix Automático's `dataInicial` and
 * `dataDeVencimento` are: counted in the store's timezone, and every period bound is counted from the
 * first day (the anchor), so a subscription started on the 31st is billed on the last day of shorter
 * months and back on the 31st after them, never drifting.
 */

/** Months per period; weeks are counted in days. */
const MONTHS: Record<Exclude<Recorrencia, 'semanal'>, number> = {
  mensal: 1,
  trimestral: 3,
  semestral: 6,
  anual: 12,
};

/** `date` plus whole months, the day clamped to the target month's last day. */
function addMonths(date: string, months: number): string {
  const start = dayStartUtc(date);
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(start.getUTCDate(), lastDay))).toISOString().slice(0, 10);
}

/** The first day after `periods` whole periods from `anchor`: period k runs [bound(k-1), bound(k)). */
export function periodBound(anchor: string, recorrencia: Recorrencia, periods: number): string {
  return recorrencia === 'semanal'
    ? addDays(anchor, 7 * periods)
    : addMonths(anchor, MONTHS[recorrencia] * periods);
}

/** How a page and an e-mail word the price: "R$ 49,90 por mês". */
export const PER_PERIOD: Record<Recorrencia, string> = {
  semanal: 'por semana',
  mensal: 'por mês',
  trimestral: 'por trimestre',
  semestral: 'por semestre',
  anual: 'por ano',
};
