const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** Dates as a Brazilian merchant reads them: one formatter per time zone, made once. */
function dateTimeIn(timeZone: string): Intl.DateTimeFormat {
  let format = dateTimeFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('pt-BR', { timeZone, dateStyle: 'short', timeStyle: 'short' });
    dateTimeFormats.set(timeZone, format);
  }
  return format;
}
const DAY_MONTH = new Intl.DateTimeFormat('pt-BR', { timeZone: 'UTC', day: '2-digit', month: '2-digit' });

/** An instant as a date and time in a zone (pages show it with `DateTime`, in the store's zone). */
export const formatDateTime = (iso: string, timeZone: string): string =>
  dateTimeIn(timeZone).format(new Date(iso));

/** `2026-11-25` → `25/11`. */
export const formatDayMonth = (date: string): string => DAY_MONTH.format(new Date(`${date}T12:00:00Z`));

export const formatPercent = (ratio: number): string =>
  new Intl.NumberFormat('pt-BR', { style: 'percent', maximumFractionDigits: 1 }).format(ratio);

export const formatCount = (n: number): string => new Intl.NumberFormat('pt-BR').format(n);

/** A calendar day `2026-12-22` → `22/12/2026`. */
export const formatDate = (date: string): string => {
  const [year, month, day] = date.split('-');
  return `${day}/${month}/${year}`;
};
/** A sale's status as the pages name it. */
export const SALE_STATUS_LABELS = {
  approved: 'Aprovada',
  refunded: 'Reembolsada',
  charged_back: 'Contestada',
} as const;
/** A Pix charge's status as the pages name it. */
export const CHARGE_STATUS_LABELS = {
  pending: 'Pendente',
  paid: 'Paga',
  expired: 'Expirada',
  canceled: 'Cancelada',
} as const;
/** A webhook endpoint's status as the pages name it. */
export const ENDPOINT_STATUS_LABELS = {
  active: 'Ativo',
  paused: 'Pausado',
  disabled: 'Desativado',
} as const;
