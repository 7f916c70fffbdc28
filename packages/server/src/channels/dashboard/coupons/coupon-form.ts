import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { addDays, isCalendarDate, localDate, localDayStart } from '../../../platform/values/local-date.js';
import type { Coupon } from '../../../domain/coupons/coupon-object.js';
import { CreateCouponBody, UpdateCouponBody } from '../../../domain/coupons/coupon-schemas.js';
import type { Database } from '../../../platform/db/schema.js';
import { bodyValidator } from '../../../platform/http/body-validator.js';
import { invalidRequest } from '../../../platform/http/api-error.js';
import { productsBy } from '../../../domain/catalogue/products-repository.js';
import { brlInput, FormText, parseBrl, parseWhole } from '../shell/form-values.js';

/*
 * The coupon form. Its body is the API's (POST /coupons, PATCH /coupons/{id}), checked with the API's
 * schemas before the coupon service runs; products are named by their codes, the validity by a day.
 */

export const CouponForm = Type.Object({
  code: FormText,
  percent_off: FormText,
  amount_off: FormText,
  max_redemptions: FormText,
  expires_on: FormText,
  product_codes: FormText,
  _csrf: FormText,
});
export type CouponForm = Static<typeof CouponForm>;
export type CouponValues = Omit<CouponForm, '_csrf'>;

/** What a refused field says, by the API's field name. */
export const COUPON_FIELD_ERRORS: Record<string, string> = {
  code: 'Use de 3 a 40 letras, números, _ ou -, num código que nenhum outro cupom da loja use.',
  percent_off: 'Informe o desconto em % (um número inteiro de 1 a 100) ou em reais, não os dois.',
  amount_off: 'Informe o desconto em reais (de R$ 0,01 a R$ 1.000.000,00) ou em %, não os dois.',
  max_redemptions:
    'Informe um número inteiro de 1 a 1.000.000.000, não menor que os usos já feitos; vazio é sem limite.',
  expires_at: 'Informe uma data futura; vazio é sem validade.',
  product_ids: 'Informe códigos de produtos desta loja (até 100); vazio vale para todos os produtos.',
};

const checkCreate = bodyValidator(CreateCouponBody);
const checkUpdate = bodyValidator(UpdateCouponBody);

/**
 * A coupon is valid through the whole day typed, in the store's time zone (its last millisecond);
 * empty never expires; anything else stays text for the API's schema to refuse.
 */
function expiresAt(day: string | undefined, timeZone: string): string | null {
  const text = (day ?? '').trim();
  if (text === '') return null;
  if (!isCalendarDate(text)) return text;
  return new Date(Date.parse(localDayStart(addDays(text, 1), timeZone)) - 1).toISOString();
}

/** Products by their codes (any separator, any case); an unknown code is refused as an unknown id is. */
async function productIds(db: Kysely<Database>, storeId: string, text: string | undefined) {
  const codes = [
    ...new Set(
      (text ?? '')
        .toUpperCase()
        .split(/[\s,;]+/)
        .filter(Boolean),
    ),
  ];
  const found = new Map((await productsBy(db, storeId, 'codigo', codes)).map((row) => [row.codigo, row.id]));
  const unknown = codes.find((code) => !found.has(code));
  if (unknown !== undefined) throw invalidRequest(`No such product: '${unknown}'.`, 'product_ids');
  return codes.map((code) => found.get(code)!);
}

const optional = <T>(text: string | undefined, read: (text: string) => T) =>
  (text ?? '').trim() === '' ? undefined : read(text!);

export async function creationBody(
  db: Kysely<Database>,
  storeId: string,
  timeZone: string,
  form: CouponForm,
) {
  return checkCreate({
    code: (form.code ?? '').trim(),
    ...optional(form.percent_off, (text) => ({ percent_off: parseWhole(text.replace('%', '')) })),
    ...optional(form.amount_off, (text) => ({ amount_off: parseBrl(text) })),
    max_redemptions: optional(form.max_redemptions, parseWhole) ?? null,
    expires_at: expiresAt(form.expires_on, timeZone),
    product_ids: await productIds(db, storeId, form.product_codes),
  });
}

/** The change body; the validity is sent only when its day changed (an expired coupon keeps its past date). */
export async function changeBody(
  db: Kysely<Database>,
  coupon: Coupon,
  storeId: string,
  timeZone: string,
  form: CouponForm,
) {
  const sameDay =
    coupon.expires_at !== null && localDate(coupon.expires_at, timeZone) === (form.expires_on ?? '').trim();
  return checkUpdate({
    max_redemptions: optional(form.max_redemptions, parseWhole) ?? null,
    ...(sameDay ? {} : { expires_at: expiresAt(form.expires_on, timeZone) }),
    product_ids: await productIds(db, storeId, form.product_codes),
  });
}

/** A stored coupon as the form shows it; `codes` are its products' codes, its day the store's. */
export function couponValues(coupon: Coupon, codes: string[], timeZone: string): CouponValues {
  return {
    code: coupon.code,
    percent_off: coupon.percent_off === null ? '' : String(coupon.percent_off),
    amount_off: coupon.amount_off === null ? '' : brlInput(coupon.amount_off),
    max_redemptions: coupon.max_redemptions === null ? '' : String(coupon.max_redemptions),
    expires_on: coupon.expires_at === null ? '' : localDate(coupon.expires_at, timeZone),
    product_codes: codes.join(' '),
  };
}
