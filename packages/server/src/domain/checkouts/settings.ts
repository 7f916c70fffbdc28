import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { HttpUrl, Nullable } from '../../platform/http/schemas.js';
import { STORABLE_TEXT_PATTERN, VISIBLE_TEXT_PATTERN } from '../../platform/http/text-patterns.js';

const Url = HttpUrl(1000);
const Text = (maxLength: number) => Type.String({ maxLength, pattern: STORABLE_TEXT_PATTERN });
const VisibleText = (maxLength: number) =>
  Type.String({ minLength: 1, maxLength, pattern: VISIBLE_TEXT_PATTERN });
const Color = Type.String({
  pattern: '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$',
  'x-pattern-message': 'must be a colour written #RGB or #RRGGBB',
  example: '#F5F5F5',
});

/** The visual keys of a checkout; the only keys accepted. Bounds are this service's own choices (docs/decisions.md). */
export const CheckoutSettings = Type.Object(
  {
    checkout_logo_enabled: Type.Boolean(),
    checkout_logo_url: Nullable(Url),
    checkout_banner_enabled: Type.Boolean(),
    checkout_banner_url: Nullable(Url),
    checkout_titulo: VisibleText(120),
    checkout_subtitulo: Nullable(Text(200)),
    checkout_descricao: Nullable(Text(2000)),
    checkout_garantia: VisibleText(120),
    checkout_selos_enabled: Type.Boolean(),
    checkout_cupom_enabled: Type.Boolean(),
    checkout_fundo_tipo: Type.Union([Type.Literal('cor'), Type.Literal('imagem'), Type.Literal('gradiente')]),
    checkout_fundo_cor: Nullable(Color),
    checkout_fundo_imagem: Nullable(Url),
  },
  { additionalProperties: false },
);

export type CheckoutSettings = Static<typeof CheckoutSettings>;

/** Any subset of the keys; omitted ones inherit from the store's default checkout. */
export const CheckoutSettingsInput = Type.Partial(CheckoutSettings, { additionalProperties: false });

export const DEFAULT_CHECKOUT_SETTINGS: CheckoutSettings = {
  checkout_logo_enabled: false,
  checkout_logo_url: null,
  checkout_banner_enabled: false,
  checkout_banner_url: null,
  checkout_titulo: 'Finalize sua compra',
  checkout_subtitulo: null,
  checkout_descricao: null,
  checkout_garantia: 'Garantia de 7 dias',
  checkout_selos_enabled: true,
  checkout_cupom_enabled: false,
  checkout_fundo_tipo: 'cor',
  checkout_fundo_cor: '#F5F5F5',
  checkout_fundo_imagem: null,
};
