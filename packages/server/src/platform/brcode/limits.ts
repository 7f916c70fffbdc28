/** Field ids and limits of the Pix BR Code (BCB "Manual de Padrões para Iniciação do Pix"). */
export const GUI_PIX = 'br.gov.bcb.pix';
export const MAX_MERCHANT_NAME = 25;
export const MAX_MERCHANT_CITY = 15;
export const MAX_TXID = 25;
/** Pix keys are at most 77 characters; the same bound is used for the dynamic location. */
export const MAX_KEY_OR_URL = 77;
/** Field 26 as a whole is a TLV value, so at most 99 characters. */
export const MAX_ACCOUNT_TEMPLATE = 99;
export const MAX_AMOUNT_CHARS = 13;
export const TXID_PATTERN = /^(?:[A-Za-z0-9]{1,25}|\*\*\*)$/;
