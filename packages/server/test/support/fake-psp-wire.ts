import { randomBytes } from 'node:crypto';

/*
 * What the fake PSP's resources share: RFC 7807 problems with the standard's types, and BR Codes
 * written here independently of the service's own builder.
 */

export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly title: string,
    readonly detail: string,
    readonly violacoes: { razao: string; propriedade: string }[] = [],
  ) {
    super(title);
  }
}

export const cobInvalida = (razao: string, propriedade: string) =>
  new Problem(
    400,
    'CobOperacaoInvalida',
    'Cobrança inválida.',
    'A requisição que busca alterar ou criar uma cobrança para pagamento imediato não respeita o _schema_ ou está semanticamente errada.',
    [{ razao, propriedade }],
  );

/** EMV TLV with CRC16-CCITT-FALSE, written here independently of the service's own builder. */
export function tlv(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'ascii')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}
/**
 * A dynamic BR Code for a cob's location; with `recLocation`, the composite code of Jornada 3 (field 80
 * points at the recurrence). `crc16` is exported so a test can re-sign a tampered code.
 */
export function dynamicBrCode(location: string, valor: string, recLocation?: string): string {
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('25', location)) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('54', valor) +
    tlv('58', 'BR') +
    tlv('59', 'LOJA TESTE') +
    tlv('60', 'SAO PAULO') +
    tlv('62', tlv('05', '***')) +
    (recLocation === undefined ? '' : tlv('80', tlv('00', 'br.gov.bcb.pix') + tlv('25', recLocation))) +
    '6304';
  return body + crc16(body);
}

export const alnum = (length: number) =>
  randomBytes(length * 2)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, length);
