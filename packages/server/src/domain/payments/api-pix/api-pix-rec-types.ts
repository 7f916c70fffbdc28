/**
 * The Pix Automático shapes of the Banco Central's API Pix this service sends and reads (the
 * standard's names: `locrec`, `rec`, `cobr`). Fields we never send or read are left out.
 */
import type { CobrStatus, Periodicidade, PoliticaRetentativa, RecStatus } from '../recurring-provider.js';
import type { Devedor, PixRecebido } from './api-pix-types.js';
import type { DadosBancariosRecebedor } from './receiving-account.js';

/** `POST /locrec` answer (PayloadLocationRecGerada), and `loc` of a rec (PayloadLocationRecCompleta). */
export interface PayloadLocationRec {
  id: number;
  /** Without scheme: `pix.example.com/qr/v2/rec/…`; the composite code's field 80-25. */
  location: string;
  criacao: string;
  idRec?: string;
}

/** `POST /rec` body (RecSolicitada), as Jornada 3 fills it. */
export interface RecSolicitada {
  vinculo: { contrato: string; devedor: Devedor; objeto: string };
  calendario: { dataInicial: string; periodicidade: Periodicidade };
  valor: { valorRec: string };
  politicaRetentativa: PoliticaRetentativa;
  /** The `id` of the `POST /locrec` answer. */
  loc: number;
  ativacao: { dadosJornada: { txid: string } };
}

/** RecEncerramento: why a rec ended, and at whose request. */
export interface RecEncerramento {
  rejeicao?: { codigo: string; descricao: string };
  cancelamento?: {
    solicitante: 'PSP_PAGADOR' | 'USUARIO_PAGADOR' | 'PSP_RECEBEDOR' | 'USUARIO_RECEBEDOR';
    codigo: string;
    descricao: string;
  };
}

/** RecGerada / RecCompleta: what `POST /rec`, `PATCH /rec/{idRec}` and `GET /rec/{idRec}` answer. */
export interface RecCompleta {
  idRec: string;
  status: RecStatus;
  vinculo: { contrato: string; devedor: Devedor; objeto?: string };
  calendario: { dataInicial: string; periodicidade: Periodicidade };
  valor?: { valorRec?: string };
  politicaRetentativa: PoliticaRetentativa;
  loc?: PayloadLocationRec;
  atualizacao: { status: RecStatus; data: string }[];
  encerramento?: RecEncerramento;
  ativacao?: { tipoJornada: string; dadosJornada?: { txid: string } };
  /** Only on `GET /rec/{idRec}?txid=`: the composite code of the chosen journey. */
  dadosQR?: { jornada?: 'JORNADA_2' | 'JORNADA_3' | 'JORNADA_4'; pixCopiaECola?: string };
}

/**
 * `PUT /cobr/{txid}` body (CobRSolicitada). `devedor` of a cobr holds contact data only (its identity
 * is the rec's). `recebedor`, required, is the store's receiving account from its PSP settings.
 */
export interface CobRSolicitada {
  idRec: string;
  calendario: { dataDeVencimento: string };
  valor: { original: string };
  ajusteDiaUtil: boolean;
  devedor?: { email: string };
  recebedor: DadosBancariosRecebedor;
}

export type TentativaStatus = 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';

/** One settlement attempt of a cobr (CobRTentativas). */
export interface CobRTentativa {
  dataLiquidacao: string;
  tipo: 'AGND' | 'NTAG' | 'RIFL';
  status: TentativaStatus;
  endToEndId: string;
  atualizacao?: { status: TentativaStatus; data: string }[];
  rejeicao?: { codigo: string; descricao: string };
}

/** CobRGerada / CobRCompleta: what `PUT`, `GET /cobr/{txid}` and a retentativa answer. */
export interface CobRCompleta {
  idRec: string;
  txid: string;
  status: CobrStatus;
  calendario: { criacao: string; dataDeVencimento: string };
  valor: { original: string };
  politicaRetentativa?: PoliticaRetentativa;
  ajusteDiaUtil: boolean;
  pix?: PixRecebido[];
  tentativas?: CobRTentativa[];
  atualizacao: { status: CobrStatus; data: string }[];
}
