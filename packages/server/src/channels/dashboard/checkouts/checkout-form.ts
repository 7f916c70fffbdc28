import { Type } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { UpdateCheckoutBody } from '../../../domain/checkouts/checkout-schemas.js';
import { CheckoutSettings } from '../../../domain/checkouts/settings.js';
import { formChecker, textProblem } from '../shell/form-check.js';
import { FormText } from '../shell/form-values.js';

/*
 * The editor's form and the API's body: one field per `settings_json` key (named as the key) plus
 * `name`. Checkboxes send a value only when ticked; an empty optional text is null. The API's own
 * schema (UpdateCheckoutBody) then decides what is valid.
 */

export type SettingKey = keyof CheckoutSettings;
export const SETTING_KEYS = Object.keys(CheckoutSettings.properties) as SettingKey[];

const SCHEMAS = CheckoutSettings.properties as Record<SettingKey, TSchema>;
const typeOf = (key: SettingKey) => [SCHEMAS[key].type].flat();
const isToggle = (key: SettingKey) => typeOf(key).includes('boolean');
const isNullable = (key: SettingKey) => typeOf(key).includes('null');

/** The longest text a key takes, from its schema (for the input's maxlength). */
export const maxLengthOf = (key: SettingKey | 'name'): number | undefined =>
  key === 'name'
    ? (UpdateCheckoutBody.properties.name.maxLength as number)
    : (SCHEMAS[key].maxLength as number | undefined);

/** What the editor shows: the typed name and each key's value, as typed (even when wrong). */
export interface Draft {
  name: string;
  settings: Record<SettingKey, string | boolean | null>;
}

/** The POST body of the editor and of the preview: loose on purpose, the API's schema checks it next. */
export const CheckoutForm = Type.Object({
  name: FormText,
  ...Object.fromEntries(SETTING_KEYS.map((key) => [key, FormText])),
  _csrf: Type.Optional(Type.String()),
});
export type CheckoutFormBody = Partial<Record<SettingKey | 'name' | '_csrf', string>>;

export const draftOf = (name: string, settings: CheckoutSettings): Draft => ({ name, settings });

export function draftFromForm(form: CheckoutFormBody): Draft {
  const settings = {} as Draft['settings'];
  for (const key of SETTING_KEYS) {
    const text = (form[key] ?? '').trim();
    settings[key] = isToggle(key) ? form[key] !== undefined : isNullable(key) && text === '' ? null : text;
  }
  return { name: (form.name ?? '').trim(), settings };
}

/** How a key's own format is worded when it is wrong (lengths and blanks are worded by textProblem). */
const FORMAT_PROBLEMS: Partial<Record<SettingKey, string>> = {
  checkout_logo_url: 'Use um endereço que comece com http:// ou https://.',
  checkout_banner_url: 'Use um endereço que comece com http:// ou https://.',
  checkout_fundo_imagem: 'Use um endereço que comece com http:// ou https://.',
  checkout_fundo_cor: 'Use uma cor no formato #RGB ou #RRGGBB, como #F5F5F5.',
  checkout_fundo_tipo: 'Escolha Cor, Imagem ou Gradiente.',
};

export type Problems = Partial<Record<SettingKey | 'name', string>>;

const check = formChecker(UpdateCheckoutBody);

/**
 * The draft checked by the API's schema: each wrong field's problem in Portuguese, and the valid
 * settings (for the preview, which shows the wrong ones as `base` has them).
 */
export function checkDraft(
  draft: Draft,
  base: CheckoutSettings,
): { problems: Problems; name: string; settings: CheckoutSettings } {
  const issues = check({ name: draft.name, settings_json: draft.settings });
  const problems: Problems = {};
  for (const [param, issue] of issues) {
    const field = (param === 'name' ? 'name' : param.replace(/^settings_json\./, '')) as SettingKey | 'name';
    problems[field] =
      textProblem(issue) ?? (field === 'name' ? undefined : FORMAT_PROBLEMS[field]) ?? 'Valor inválido.';
  }
  const settings = { ...base };
  for (const key of SETTING_KEYS) {
    if (!problems[key]) (settings as Record<SettingKey, unknown>)[key] = draft.settings[key];
  }
  return { problems, name: draft.name, settings };
}
