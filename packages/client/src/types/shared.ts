/** ISO 8601 UTC timestamp with milliseconds, e.g. `2026-11-22T10:00:00.000Z`. */
export type Timestamp = string;

/** Free-form keys attached by the caller. */
export type Metadata = Record<string, string>;

/** Query parameters common to every listing. */
export interface ListParams {
  /** Page size, 1-100; the service default is 20. */
  limit?: number;
  /** Opaque cursor from a previous page's `next_cursor`; never build one yourself. */
  starting_after?: string;
}

/** The list envelope every listing answers. */
export interface ListEnvelope<Item> {
  object: 'list';
  data: Item[];
  has_more: boolean;
  /** Null when `has_more` is false. */
  next_cursor: string | null;
}

/** Who pays: used by Pix charges and the sales they create. */
export interface Customer {
  /** The payer's name, 1-200 characters (API 1.1.0). */
  name?: string;
  email?: string;
  whatsapp?: string;
  /** CPF or CNPJ. */
  document?: string;
}

/** What the service answered besides the body. */
export interface ResponseInfo {
  /** 200 or 201 and so on. */
  statusCode: number;
  /** The `Request-Id` header (`req_…`), to quote when asking about a request. */
  requestId: string | null;
  /** Every response header, names in lower case (e.g. `external-id-mismatch`). */
  headers: Record<string, string>;
}

/**
 * An object as a method returns it: the API object plus a non-enumerable `lastResponse` (it stays
 * out of `JSON.stringify` and object spreads).
 */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };
