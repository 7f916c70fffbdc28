import { expect, it } from 'vitest';
import { STANDARD_TOKEN_REQUEST } from '../../src/domain/payments/api-pix/token-request.js';
import { prefixedId, randomBase62 } from '../../src/platform/values/ids.js';
import { parseCompositeBrCode, renderQrPng } from '../../src/platform/brcode/index.js';
import { apiPixClient } from '../../src/domain/payments/api-pix/api-pix-client.js';
import { createApiPixTransport } from '../../src/domain/payments/api-pix/api-pix-transport.js';
import type { LivePixProvider } from '../../src/domain/payments/live-pix-provider.js';
import { cycleTxid } from '../../src/domain/subscriptions/cycle-txid.js';
import type { SubscriptionChargeRequest } from '../../src/domain/payments/recurring-provider.js';
import { decodeFields } from '../../src/platform/brcode/tlv.js';
import type { TlvField } from '../../src/platform/brcode/tlv.js';
import { decodeQr } from '../pix/pix-test-helpers.js';
import { apiPixViolations } from '../support/api-pix-schemas.js';
import { RECEBEDOR_CONTA } from '../support/fake-psp-rec.js';
import { crc16, tlv } from '../support/fake-psp-wire.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { testPki } from '../support/test-pki.js';
import {
  CHAVE,
  FAKE_PSP_ALLOWED_HOSTS,
  describeLivePix,
  startTestReconciler,
  useLivePix,
} from './live-harness.js';
import type { LiveStore } from './live-harness.js';

/** What the subscriptions module asks for a first charge, with the fields a test changes. */
function journeyRequest(overrides: Partial<SubscriptionChargeRequest> = {}): SubscriptionChargeRequest {
  return {
    txid: `k${randomBase62(29)}`,
    subscriptionId: prefixedId('sub'),
    objeto: 'Clube do Café Especial — assinatura mensal premium',
    customer: { name: 'Maria da Silva', document: '52998224725', email: 'maria@example.com' },
    dataInicial: '2026-11-25',
    periodicidade: 'MENSAL',
    amountCents: 4990,
    politicaRetentativa: 'PERMITE_3R_7D',
    expiresIn: 3600,
    description: 'Clube do Café, 1º mês',
    receiver: { pixKey: CHAVE, merchantName: 'LOJA AO VIVO', merchantCity: 'SAO PAULO' },
    // A first try: the PSP holds nothing of it yet, and its steps are not kept.
    progress: { held: { loc: null, idRec: null }, save: async () => {} },
    ...overrides,
  };
}

/** One cycle's `PUT /cobr` as the subscriptions module asks for it (R$ 49,90, due 2026-12-25). */
function cycleRequest(idRec: string, txid: string, amountCents = 4990) {
  const { customer, receiver } = journeyRequest();
  return { txid, idRec, dueDate: '2026-12-25', amountCents, customer, receiver };
}

/** The PSP calls made while `work` ran, without the token endpoint: method, path and body. */
async function callsDuring(
  psp: ReturnType<ReturnType<typeof useLivePix>['psp']>,
  work: () => Promise<unknown>,
) {
  const from = psp.requests.length;
  await work().catch(() => undefined);
  return psp.requests
    .slice(from)
    .filter((r) => r.path.startsWith('/v2/'))
    .map((r) => ({ method: r.method, path: r.path.slice(3), body: r.body }));
}

/** Rewrites a BR Code's top-level fields and signs it again, so only the change (not the CRC) is wrong. */
function rewritten(code: string, change: (fields: TlvField[]) => TlvField[]): string {
  const fields = change(decodeFields(code).filter((field) => field.id !== '63'));
  const body = `${fields.map((field) => tlv(field.id, field.value)).join('')}6304`;
  return body + crc16(body);
}

describeLivePix('Live Pix Automático through a PSP speaking the API Pix (fake PSP over mTLS)', (api) => {
  const live = useLivePix(api);

  async function providerOf(store: LiveStore): Promise<LivePixProvider> {
    return api.payments.livePix(store.storeId);
  }

  /** A Jornada 3 the payer completed: the rec is APROVADA at the PSP. */
  async function approvedRec(store: LiveStore, overrides: Partial<SubscriptionChargeRequest> = {}) {
    const provider = await providerOf(store);
    const created = await provider.createSubscriptionCharge(journeyRequest(overrides));
    await live.psp().rec.payJourney3(created.idRec);
    return { provider, created };
  }

  it('Jornada 3 sends exactly POST /locrec, PUT /cob, POST /rec, GET /rec?txid=, with the bodies the standard defines', async () => {
    const store = await live.liveStore();
    const provider = await providerOf(store);
    const request = journeyRequest();
    let created: Awaited<ReturnType<LivePixProvider['createSubscriptionCharge']>> | undefined;
    const calls = await callsDuring(live.psp(), async () => {
      created = await provider.createSubscriptionCharge(request);
    });
    const psp = live.psp();
    const rec = psp.rec.recs.get(created!.idRec)!;
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /locrec',
      `PUT /cob/${request.txid}`,
      'POST /rec',
      `GET /rec/${created!.idRec}?txid=${request.txid}`,
    ]);
    expect(calls[0]!.body).toBeUndefined();
    expect(calls[1]!.body).toEqual({
      calendario: { expiracao: 3600 },
      valor: { original: '49.90' },
      chave: CHAVE,
      solicitacaoPagador: 'Clube do Café, 1º mês',
      devedor: { cpf: '52998224725', nome: 'Maria da Silva' },
    });
    expect(calls[2]!.body).toEqual({
      vinculo: {
        contrato: request.subscriptionId,
        devedor: { cpf: '52998224725', nome: 'Maria da Silva' },
        // The product name, cut to the standard's 35 characters.
        objeto: 'Clube do Café Especial — assinatura',
      },
      calendario: { dataInicial: '2026-11-25', periodicidade: 'MENSAL' },
      valor: { valorRec: '49.90' },
      politicaRetentativa: 'PERMITE_3R_7D',
      loc: rec.loc.id,
      ativacao: { dadosJornada: { txid: request.txid } },
    });
    // Held to the standard's own schemas (the fake PSP refuses anything else), not just to our idea of them.
    expect(apiPixViolations('CobSolicitada', calls[1]!.body)).toEqual([]);
    expect(apiPixViolations('RecSolicitada', calls[2]!.body)).toEqual([]);

    // The composite code is the PSP's, and points at our cob and our recurrence.
    const cob = psp.cobs.get(request.txid)!;
    expect(created).toEqual({
      txid: request.txid,
      idRec: rec.idRec,
      copyPaste: expect.any(String),
      location: cob.location,
    });
    const parsed = parseCompositeBrCode(created!.copyPaste);
    expect(parsed).toMatchObject({ url: cob.location, recurrenceUrl: rec.loc.location, amount: 49.9 });
    expect(decodeQr((await renderQrPng(created!.copyPaste)).base64)).toBe(created!.copyPaste);
    expect(rec).toMatchObject({ status: 'CRIADA', vinculo: { contrato: request.subscriptionId } });
  });

  it('vinculo fields at the limit pass; a longer contrato, objeto and name are cut, never refused', async () => {
    const store = await live.liveStore();
    const provider = await providerOf(store);
    const exact = journeyRequest({
      objeto: 'x'.repeat(35),
      customer: { name: 'N'.repeat(140), document: '11222333000181' },
    });
    const long = journeyRequest({
      subscriptionId: `sub_${'y'.repeat(40)}`,
      objeto: 'ç'.repeat(36),
      customer: { name: 'Ñ'.repeat(141), document: '52998224725' },
    });
    for (const request of [exact, long]) {
      const created = await provider.createSubscriptionCharge(request);
      const { vinculo } = live.psp().rec.recs.get(created.idRec)!;
      expect([...vinculo.contrato].length).toBeLessThanOrEqual(35);
      expect([...vinculo.objeto!].length).toBe(35);
      expect([...vinculo.devedor.nome!].length).toBe(140);
    }
    expect(live.psp().rec.recs.size).toBeGreaterThanOrEqual(2);
    const last = [...live.psp().rec.recs.values()].at(-1)!;
    expect(last.vinculo).toEqual({
      contrato: `sub_${'y'.repeat(31)}`,
      objeto: 'ç'.repeat(35),
      devedor: { cpf: '52998224725', nome: 'Ñ'.repeat(140) },
    });
    const first = [...live.psp().rec.recs.values()].at(-2)!;
    expect(first.vinculo.devedor).toEqual({ cnpj: '11222333000181', nome: 'N'.repeat(140) });
  });

  it('a tampered composite code is refused (502 provider_error): bad CRC, another amount, no field 80, another recurrence', async () => {
    const store = await live.liveStore();
    const provider = await providerOf(store);
    const psp = live.psp();
    const tampers: [(code: string) => string, RegExp][] = [
      [(code) => code.replace('LOJA TESTE', 'LOJA FALSA'), /not a valid BR Code: CRC mismatch/],
      [
        (code) =>
          rewritten(code, (fields) => fields.map((f) => (f.id === '54' ? { id: '54', value: '99.99' } : f))),
        /composite code for 99.99 amount instead of 49.90/,
      ],
      [
        (code) => rewritten(code, (fields) => fields.filter((f) => f.id !== '80')),
        /field 80 \(Pix Automático recurrence\) is missing/,
      ],
      [
        (code) =>
          rewritten(code, (fields) =>
            fields.map((f) =>
              f.id === '80'
                ? {
                    id: '80',
                    value: tlv('00', 'br.gov.bcb.pix') + tlv('25', 'outro.psp.example/qr/v2/rec/abc'),
                  }
                : f,
            ),
          ),
        /does not point at the recurrence/,
      ],
      [
        (code) =>
          rewritten(code, (fields) =>
            fields.map((f) =>
              f.id === '26'
                ? { id: '26', value: tlv('00', 'br.gov.bcb.pix') + tlv('25', 'outro.psp.example/qr/v2/x') }
                : f,
            ),
          ),
        /does not point at the first charge/,
      ],
    ];
    try {
      for (const [tamper, message] of tampers) {
        psp.rec.compositeOverride = tamper;
        const error = await provider.createSubscriptionCharge(journeyRequest()).catch((e: unknown) => e);
        expect(error).toMatchObject({
          statusCode: 502,
          code: 'provider_error',
          message: expect.stringMatching(message),
        });
      }
    } finally {
      psp.rec.compositeOverride = null;
    }
    // The same journey with the PSP's honest code goes through.
    await expect(provider.createSubscriptionCharge(journeyRequest())).resolves.toMatchObject({
      location: expect.any(String),
    });
  });

  it('PSP refusals arrive as provider_error naming its problem+json: schema violations, a rec not approved, no retries, unknown ids', async () => {
    const store = await live.liveStore();
    const provider = await providerOf(store);
    const pki = testPki();
    const psp = live.psp();
    const client = apiPixClient(
      createApiPixTransport(
        {
          baseUrl: psp.baseUrl,
          tokenUrl: psp.tokenUrl,
          clientId: psp.clientId,
          clientSecret: psp.clientSecret,
          tokenRequest: STANDARD_TOKEN_REQUEST,
          tls: { cert: pki.client.cert, key: pki.client.key },
          ca: pki.ca.cert,
        },
        { connectTimeoutMs: 3000, requestTimeoutMs: 5000, allowedHosts: FAKE_PSP_ALLOWED_HOSTS },
      ),
    );
    try {
      const badRec = journeyRequest();
      const loc = await client.postLocrec();
      const refused = await client
        .postRec({
          vinculo: { contrato: 'c'.repeat(36), devedor: { cpf: '529', nome: 'M' }, objeto: 'x' },
          calendario: { dataInicial: badRec.dataInicial, periodicidade: 'MENSAL' },
          valor: { valorRec: '49.9' },
          politicaRetentativa: 'PERMITE_3R_7D',
          loc: loc.id,
          ativacao: { dadosJornada: { txid: 'curto' } },
        })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ statusCode: 502, code: 'provider_error', pspStatus: 400 });
      const message = (refused as Error).message;
      expect(message).toMatch(
        /^The PSP answered POST \/rec with 400 RecOperacaoInvalida: "Recorrência inválida."/,
      );
      for (const field of [
        'vinculo.contrato',
        'vinculo.devedor.cpf',
        'valor.valorRec',
        'ativacao.dadosJornada.txid',
      ]) {
        expect(message).toContain(field);
      }
    } finally {
      await client.close();
    }

    // A cycle's charge on an authorisation the payer has not given yet.
    const pending = await provider.createSubscriptionCharge(
      journeyRequest({ politicaRetentativa: 'NAO_PERMITE' }),
    );
    const cobr = cycleRequest(pending.idRec, cycleTxid(prefixedId('sub'), 2));
    await expect(provider.scheduleCycleCharge(cobr)).rejects.toMatchObject({
      code: 'provider_error',
      message: expect.stringMatching(
        /PUT \/cobr\/\w+ with 400 CobROperacaoInvalida: .*não está APROVADA \(está CRIADA\)/,
      ),
    });
    // Approved but without retries: the PSP refuses a retentativa.
    await psp.rec.payJourney3(pending.idRec);
    await provider.scheduleCycleCharge(cobr);
    await psp.rec.failCobr(cobr.txid);
    await expect(provider.requestRetry(cobr.txid, '2026-12-26')).rejects.toMatchObject({
      message: expect.stringMatching(
        /retentativa\/2026-12-26 with 400 CobROperacaoInvalida: .*não permite retentativas/,
      ),
    });
    await expect(provider.getAuthorisation('RR1234567820240115abcdefghijk')).rejects.toMatchObject({
      pspStatus: 404,
      message: expect.stringMatching(/GET \/rec\/RR1234567820240115abcdefghijk with 404 NaoEncontrado/),
    });
    await expect(provider.getCycleCharge(`c${'0'.repeat(28)}`, 4990)).rejects.toMatchObject({
      pspStatus: 404,
    });
  });

  it('a cycle: PUT /cobr with its exact body, a failed attempt, a retentativa, then the payment; a retried PUT is the same cobr', async () => {
    const store = await live.liveStore();
    const { provider, created } = await approvedRec(store);
    const psp = live.psp();
    expect(await provider.getAuthorisation(created.idRec)).toEqual({ status: 'APROVADA', endedBy: null });

    const subscriptionId = prefixedId('sub');
    const txid = cycleTxid(subscriptionId, 2);
    expect(txid).toBe(`c${subscriptionId.slice('sub_'.length)}0002`);
    const request = cycleRequest(created.idRec, txid);
    const calls = await callsDuring(psp, () => provider.scheduleCycleCharge(request));
    expect(calls).toEqual([
      {
        method: 'PUT',
        path: `/cobr/${txid}`,
        body: {
          idRec: created.idRec,
          calendario: { dataDeVencimento: '2026-12-25' },
          valor: { original: '49.90' },
          ajusteDiaUtil: true,
          devedor: { email: 'maria@example.com' },
          // The store's receiving account, from its PSP settings.
          recebedor: RECEBEDOR_CONTA,
        },
      },
    ]);
    expect(apiPixViolations('CobRSolicitada', calls[0]!.body)).toEqual([]);
    // A retry of the same cycle (a crash after the PSP answered): the PSP refuses the txid, we take its cobr.
    const again = await callsDuring(psp, async () => {
      await expect(provider.scheduleCycleCharge(request)).resolves.toEqual({ txid, status: 'ATIVA' });
    });
    expect(again.map((c) => `${c.method} ${c.path}`)).toEqual([`PUT /cobr/${txid}`, `GET /cobr/${txid}`]);
    expect([...psp.rec.cobrs.values()].filter((c) => c.idRec === created.idRec)).toHaveLength(1);
    // Another amount under the same txid is never taken for it.
    await expect(provider.scheduleCycleCharge(cycleRequest(created.idRec, txid, 5000))).rejects.toMatchObject(
      {
        pspStatus: 400,
      },
    );

    expect(await provider.getCycleCharge(txid, 4990)).toEqual({
      status: 'ATIVA',
      payment: null,
      attemptFailed: false,
    });
    await psp.rec.failCobr(txid);
    expect(await provider.getCycleCharge(txid, 4990)).toEqual({
      status: 'ATIVA',
      payment: null,
      attemptFailed: true,
    });
    const retry = await callsDuring(psp, () => provider.requestRetry(txid, '2026-12-26'));
    expect(retry).toEqual([
      { method: 'POST', path: `/cobr/${txid}/retentativa/2026-12-26`, body: undefined },
    ]);
    expect(await provider.getCycleCharge(txid, 4990)).toMatchObject({ attemptFailed: false });

    const e2e = await psp.rec.settleCobr(txid);
    expect(await provider.getCycleCharge(txid, 4990)).toEqual({
      status: 'CONCLUIDA',
      attemptFailed: false,
      payment: { endToEndId: e2e, txid, amountCents: 4990, paidAt: expect.stringMatching(/Z$/) },
    });
    // Paid, but not the amount we billed: no payment.
    expect((await provider.getCycleCharge(txid, 5000)).payment).toBeNull();
  });

  it('cancelling the authorisation is PATCH /rec {status: CANCELADA}; the payer or their PSP ending it is read as buyer or psp', async () => {
    const store = await live.liveStore();
    const psp = live.psp();
    const { provider, created } = await approvedRec(store);
    const calls = await callsDuring(psp, () => provider.cancelAuthorisation(created.idRec));
    expect(calls).toEqual([
      { method: 'PATCH', path: `/rec/${created.idRec}`, body: { status: 'CANCELADA' } },
    ]);
    expect(apiPixViolations('RecRevisada', calls[0]!.body)).toEqual([]);
    // Ours (USUARIO_RECEBEDOR): the subscription already knows; a second cancel finds it ended.
    expect(await provider.getAuthorisation(created.idRec)).toEqual({ status: 'CANCELADA', endedBy: null });
    const second = await callsDuring(psp, () => provider.cancelAuthorisation(created.idRec));
    expect(second.map((c) => `${c.method} ${c.path}`)).toEqual([
      `PATCH /rec/${created.idRec}`,
      `GET /rec/${created.idRec}`,
    ]);
    await expect(provider.cancelAuthorisation(created.idRec)).resolves.toBeUndefined();

    const byBuyer = await approvedRec(store);
    await psp.rec.endRec(byBuyer.created.idRec, 'USUARIO_PAGADOR');
    expect(await provider.getAuthorisation(byBuyer.created.idRec)).toEqual({
      status: 'CANCELADA',
      endedBy: 'buyer',
    });
    const byPsp = await approvedRec(store);
    await psp.rec.endRec(byPsp.created.idRec, 'PSP_PAGADOR');
    expect(await provider.getAuthorisation(byPsp.created.idRec)).toEqual({
      status: 'CANCELADA',
      endedBy: 'psp',
    });
  });

  it('rec and cobr callbacks are persisted and answered at once; a forged one changes nothing at the PSP, where the state is read', async () => {
    const store = await live.liveStore();
    const psp = live.psp();
    const { provider, created } = await approvedRec(store);
    // The payer's approval reached /rec, the first charge's payment /pix.
    const url = psp.webhooks.get(CHAVE)!;
    expect(psp.rec.webhookRec).toBe(url);
    expect(psp.rec.webhookCobr).toBe(url);
    expect(psp.callbacks.slice(-2).map((c) => [c.url.slice(url.length), c.status])).toEqual([
      ['/pix', 200],
      ['/rec', 200],
    ]);
    const txid = cycleTxid(prefixedId('sub'), 2);
    await provider.scheduleCycleCharge(cycleRequest(created.idRec, txid));
    await psp.rec.settleCobr(txid);
    expect(psp.callbacks.at(-1)).toMatchObject({ url: `${url}/cobr`, status: 200 });

    const post = (suffix: string, body: unknown, token = url) =>
      fetch(`${token}/${suffix}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // Forged: the authorisation "canceled" and the paid cycle "rejected". Answered 200 and kept, but the
    // PSP, which decides, still says otherwise.
    const forgedRec = { recs: [{ idRec: created.idRec, status: 'CANCELADA', atualizacao: [] }] };
    const forgedCobr = { cobsr: [{ idRec: created.idRec, txid, status: 'REJEITADA', atualizacao: [] }] };
    expect((await post('rec', forgedRec)).status).toBe(200);
    expect((await post('cobr', forgedCobr)).status).toBe(200);
    expect((await post('cobr', forgedCobr.cobsr)).status).toBe(200);
    expect((await post('rec', { nada: true })).status).toBe(200);
    expect(await provider.getAuthorisation(created.idRec)).toEqual({ status: 'APROVADA', endedBy: null });
    expect(await provider.getCycleCharge(txid, 4990)).toMatchObject({
      status: 'CONCLUIDA',
      attemptFailed: false,
    });

    const rows = await api.db
      .selectFrom('pix_callbacks')
      .select(['body', 'txids'])
      .where('store_id', '=', store.storeId)
      .execute();
    const named = rows.map((r) => r.txids).sort();
    // pix (the first charge's txid), rec (approval), cobr (payment), then the four posted here.
    expect(named).toEqual(
      [
        JSON.stringify([created.txid]),
        JSON.stringify([created.idRec]),
        JSON.stringify([txid]),
        JSON.stringify([created.idRec]),
        JSON.stringify([txid]),
        JSON.stringify([txid]),
        '[]',
      ].sort(),
    );
    expect(rows.map((r) => JSON.parse(r.body))).toContainEqual(forgedRec);
    // An unknown token is refused on both, and nothing is kept for it.
    const unknown = `${api.baseUrl}/callbacks/pix/not-a-token`;
    expect((await post('rec', forgedRec, unknown)).status).toBe(404);
    expect((await post('cobr', forgedCobr, unknown)).status).toBe(404);
    expect(
      await api.db.selectFrom('pix_callbacks').select('id').where('store_id', '=', store.storeId).execute(),
    ).toHaveLength(7);
  });

  it('a reconciler runs extra due checks each round: a cycle charge settled without a callback is read at the PSP; a failing check does not stop the others', async () => {
    const store = await live.liveStore();
    const psp = live.psp();
    const { provider, created } = await approvedRec(store);
    const txid = cycleTxid(prefixedId('sub'), 2);
    await provider.scheduleCycleCharge(cycleRequest(created.idRec, txid));
    psp.dropCallbacks = true;
    // Settled before the reconciler starts: a round that read it first would see it still ATIVA.
    await psp.rec.settleCobr(txid);
    // What the subscriptions module's check does with its claimed rows, here a queue of txids.
    const unknown = `c${randomBase62(28)}`;
    const due = [txid, unknown];
    const seen: unknown[] = [];
    const reconciler = startTestReconciler(api, {
      pollIntervalMs: 20,
      checks: [
        {
          name: 'cycle charges',
          claim: async (_db, limit) =>
            due.splice(0, limit).map((id) => async () => {
              seen.push(await provider.getCycleCharge(id, 4990));
            }),
        },
      ],
    });
    try {
      // Both checks ran: the settled charge was read, and the unknown one asked for (and failed).
      await eventually(
        async () => seen.length === 1 && psp.requests.some((r) => r.path === `/v2/cobr/${unknown}`),
      );
      expect(seen).toEqual([
        { status: 'CONCLUIDA', attemptFailed: false, payment: expect.objectContaining({ txid }) },
      ]);
      expect(psp.requests.filter((r) => r.path === `/v2/cobr/${unknown}`)).toHaveLength(1);
    } finally {
      psp.dropCallbacks = false;
      await reconciler.stop();
    }
  });
});
