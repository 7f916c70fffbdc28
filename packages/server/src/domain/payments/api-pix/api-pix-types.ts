/** The shapes of the Banco Central's API Pix this service sends and reads (the standard's names). */
import type { CobStatus } from '../live-pix-provider.js';

export type Devedor = { cpf: string; nome: string } | { cnpj: string; nome: string };

/** `PUT /cob/{txid}` body (CobSolicitada). */
export interface CobSolicitada {
  calendario: { expiracao: number };
  devedor?: Devedor;
  valor: { original: string };
  chave: string;
  solicitacaoPagador?: string;
}

export interface DevolucaoPix {
  id: string;
  rtrId?: string;
  valor: string;
  status: DevolucaoStatus;
  motivo?: string;
}

/** A received Pix as the PSP reports it (`pix[]` of a cob, or of a callback). */
export interface PixRecebido {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario: string;
  devolucoes?: DevolucaoPix[];
}

/** CobGerada / CobCompleta: what `PUT`, `PATCH` and `GET /cob/{txid}` answer. */
export interface CobCompleta {
  txid: string;
  revisao: number;
  status: CobStatus;
  calendario: { criacao: string; expiracao: number };
  valor: { original: string };
  chave: string;
  location?: string;
  pixCopiaECola?: string;
  pix?: PixRecebido[];
}

export interface CobsConsultadas {
  parametros: { inicio: string; fim: string; paginacao: Record<string, number> };
  cobs: CobCompleta[];
}

export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

export interface Devolucao {
  id: string;
  rtrId: string;
  valor: string;
  horario: { solicitacao?: string; liquidacao?: string };
  status: DevolucaoStatus;
  motivo?: string;
}

/** Cents as the standard writes money: `"12.34"`, integer arithmetic only. */
export function valorOf(cents: number): string {
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** `"12.34"` → 1234; null when it is not the standard's `\d{1,10}\.\d{2}`. */
export function centsOf(valor: unknown): number | null {
  if (typeof valor !== 'string' || !/^\d{1,10}\.\d{2}$/.test(valor)) return null;
  return Number(valor.replace('.', ''));
}
