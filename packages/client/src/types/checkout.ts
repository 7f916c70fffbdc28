import type { ListParams, Timestamp } from './shared.js';

/** Visual settings of a checkout page; the only keys the service accepts. */
export interface CheckoutSettings {
  checkout_logo_enabled: boolean;
  checkout_logo_url: string | null;
  checkout_banner_enabled: boolean;
  checkout_banner_url: string | null;
  checkout_titulo: string;
  checkout_subtitulo: string | null;
  checkout_descricao: string | null;
  checkout_garantia: string;
  checkout_selos_enabled: boolean;
  checkout_cupom_enabled: boolean;
  checkout_fundo_tipo: 'cor' | 'imagem' | 'gradiente';
  /** `#RGB` or `#RRGGBB`. */
  checkout_fundo_cor: string | null;
  checkout_fundo_imagem: string | null;
}

/** The visual configuration of a purchase page. */
export interface Checkout {
  object: 'checkout';
  id: string;
  name: string;
  is_default: boolean;
  archived: boolean;
  /** Mirrors `settings_json.checkout_banner_url`. */
  banner_url: string | null;
  settings_json: CheckoutSettings;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CheckoutCreateParams {
  /** 1-120 characters. */
  name: string;
  /** Links that product to the new checkout. */
  product_id?: string;
  /** Omitted keys inherit from the store's default checkout. */
  settings_json?: Partial<CheckoutSettings>;
}

/** Only the fields sent change; settings keys sent replace those keys only. */
export interface CheckoutUpdateParams {
  name?: string;
  settings_json?: Partial<CheckoutSettings>;
}

export type CheckoutListParams = ListParams;
