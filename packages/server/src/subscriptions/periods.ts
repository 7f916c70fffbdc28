import type { Recorrencia } from '../products/product-object.js';
import type { Periodicidade } from './recurring-provider.js';

/*
 * Subscription periods are calendar days (`YYYY-MM-DD`), as Pix Automático's `dataInicial` and
 * `dataDeVencimento` are: counted in the store's timezone, and every period bound is counted from the
 * first day (the anchor), so a subscription started on the 31st is billed on the last day of shorter
 * months and back on the 31st after them, never drifting.
 */

/** The timezone a store's days are counted in (stores gain their own setting with the store resource). */
export const DEFAULT_STORE_TIMEZONE = 'America/Sao_Paulo';

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Months per period; weeks are counted in days. */
const MONTHS: Record<Exclude<Recorrencia, 'semanal'>, number> = {
  mensal: 1,
  trimestral: 3,
  semestral: 6,
  anual: 12,
};

/** `YYYY-MM-DD` of an instant in a timezone. */
export function dateIn(instant: Date, timeZone = DEFAULT_STORE_TIMEZONE): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
}

/** Whether `text` is a real calendar day written `YYYY-MM-DD`. */
export function isCalendarDate(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === text;
}

function toUtc(date: string): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

export function addDays(date: string, days: number): string {
  return new Date(toUtc(date).getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

/** `date` plus whole months, the day clamped to the target month's last day. */
function addMonths(date: string, months: number): string {
  const start = toUtc(date);
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

/** Days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((toUtc(to).getTime() - toUtc(from).getTime()) / 86_400_000);
}

export function periodicidadeOf(recorrencia: Recorrencia): Periodicidade {
  return recorrencia.toUpperCase() as Periodicidade;
}

/** How a page and an e-mail word the price: "R$ 49,90 por mês". */
export const PER_PERIOD: Record<Recorrencia, string> = {
  semanal: 'por semana',
  mensal: 'por mês',
  trimestral: 'por trimestre',
  semestral: 'por semestre',
  anual: 'por ano',
};
