/**
 * Where the payer's app finds the receiver: a Pix key (static code, field 26-01) or the location of a
 * dynamic charge (field 26-25, a URL without scheme, e.g. `pix.example.com/qr/v2/abc`).
 */
export type PixAccount = { pixKey: string; url?: never } | { url: string; pixKey?: never };

/** Who receives a charge's money, as its BR Code shows it (fields 26-01, 59 and 60). */
export interface PixReceiver {
  pixKey: string;
  merchantName: string;
  merchantCity: string;
}

/** Input of the builder. Text fields are folded to ASCII; see `buildBrCode` for the limits. */
export type BrCodeInput = PixAccount & {
  merchantName: string;
  merchantCity: string;
  /** Reais, > 0, at most two decimals. Omitted: the payer types the amount. */
  amount?: number;
  /** `[A-Za-z0-9]{1,25}`; default `***` (no txid). */
  txid?: string;
  /** Free text shown to the payer (field 26-02). Static codes only in practice. */
  additionalInfo?: string;
  /** Merchant category code, 4 digits; default `0000`. */
  merchantCategoryCode?: string;
  /** Writes field 01 = `12` (single-use). Omitted: field 01 is left out. */
  singleUse?: boolean;
};

/** What the parser returns: the same shape as the input, with defaults made explicit. */
export type BrCode = PixAccount & {
  merchantName: string;
  merchantCity: string;
  amount?: number;
  txid: string;
  additionalInfo?: string;
  merchantCategoryCode: string;
  singleUse: boolean;
};
