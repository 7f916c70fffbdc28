import { beforeAll, expect, it } from 'vitest';
import { addDashboardUser, dashboardLogin, dashboardRequest, memberPerRole } from '../support/dashboard.js';
import { auditOf, eventTypesOf } from '../support/store-records.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';

const PATH = '/dashboard/produtos';
const HOSTILE = '<script>alert(1)</script> "Zé" & <b>';

/** A form as the page sends it: every field of the product, these values over empty ones. */
const form = (fields: Record<string, string>) => ({
  nome: '',
  preco: '',
  slug: '',
  descricao: '',
  imagem: '',
  link_acesso: '',
  garantia: '',
  checkout_id: '',
  order_bump_codigo: '',
  order_bump_title: '',
  order_bump_description: '',
  delivery_email_subject: '',
  delivery_email_body: '',
  recorrencia: '',
  retry_policy: '3_in_7_days',
  ...fields,
});

const createdId = (location: string | null) =>
  /\/dashboard\/produtos\/([0-9a-f-]{36})\?aviso=criado$/.exec(location ?? '')?.[1];
const fieldError = (html: string, id: string) =>
  new RegExp(`id="f-${id}-error"[^>]*>([^<]*)<`).exec(html)?.[1] ?? null;

describeEachDatabase('dashboard Produtos', (api: TestApi) => {
  let key: string;
  let storeId: string;
  let handle: string;
  const { sessions, get, post, signIn } = memberPerRole(api);
  const productCount = async () =>
    (await api.db.selectFrom('products').select('id').where('store_id', '=', storeId).execute()).length;
  const eventsOf = (id: string) => eventTypesOf(api, storeId, id);
  const productAudit = () => auditOf(api, storeId, 'product_');
  /** Creates through the dashboard; returns the new product's id. */
  async function create(fields: Record<string, string>): Promise<string> {
    const res = await post('editor', PATH, form(fields));
    expect(res.status, res.text).toBe(303);
    return createdId(res.headers.get('location'))!;
  }

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore({ name: 'Loja Produtos' }));
    handle = (
      await api.db.selectFrom('stores').select('handle').where('id', '=', storeId).executeTakeFirstOrThrow()
    ).handle;
    await signIn(storeId);
  });

  it("creates a product with every field; it is the API's product, with its event, audit entry and page link", async () => {
    const bump = (await api.as(key).post('/products', { nome: 'Bônus', preco: 9.9 })).body;
    const checkout = (await api.as(key).post('/checkouts', { name: 'Oferta' })).body;
    const id = await create({
      nome: 'Curso de Violão',
      preco: '1.234,56',
      slug: 'violao',
      descricao: 'Linha 1\r\nLinha 2',
      imagem: 'https://cdn.example.com/violao.png',
      link_acesso: 'https://membros.example.com/violao',
      garantia: '7 dias',
      checkout_id: checkout.id,
      order_bump_enabled: 'on',
      order_bump_codigo: bump.codigo.toLowerCase(),
      order_bump_title: 'Leve o bônus',
      order_bump_description: 'Só hoje',
      delivery_email_subject: 'Seu acesso, {{nome}}',
      delivery_email_body: 'Acesse {{link_acesso}}',
      recorrencia: 'mensal',
      retry_policy: 'none',
    });
    const product = (await api.as(key).get(`/products/${id}`)).body;
    expect(product).toMatchObject({
      nome: 'Curso de Violão',
      preco: 1234.56,
      slug: 'violao',
      descricao: 'Linha 1\nLinha 2',
      imagem: 'https://cdn.example.com/violao.png',
      link_acesso: 'https://membros.example.com/violao',
      garantia: '7 dias',
      ativo: true,
      checkout_id: checkout.id,
      order_bump_enabled: true,
      order_bump_product_id: bump.id,
      order_bump_title: 'Leve o bônus',
      order_bump_description: 'Só hoje',
      delivery_email_subject: 'Seu acesso, {{nome}}',
      delivery_email_body: 'Acesse {{link_acesso}}',
      recorrencia: 'mensal',
      retry_policy: 'none',
    });
    expect(await eventsOf(id)).toEqual(['product.created']);
    expect(await productAudit()).toContain(`product_created: Curso de Violão (${product.codigo})`);

    const page = await get('editor', `${PATH}/${id}?aviso=criado`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Produto criado.');
    expect(page.text).toContain(`href="${api.config.publicUrl}/p/${handle}/violao"`);
    expect(page.text).toContain(`value="${bump.codigo}"`); // the bump shown by its code
    expect((await fetch(`${api.baseUrl}/p/${handle}/violao`)).status).toBe(200);
    // Listed among the active products, linked by id.
    expect((await get('viewer', PATH)).text).toContain(`href="${PATH}/${id}"`);
  });

  it('edits: only what changed is written (one product.updated), a cleared field becomes null', async () => {
    const id = await create({ nome: 'Ebook', preco: '10', descricao: 'Antes', garantia: '30 dias' });
    const edited = await post(
      'editor',
      `${PATH}/${id}`,
      form({ nome: 'Ebook 2ª edição', preco: '19,90', garantia: '30 dias' }),
    );
    expect(edited.status, edited.text).toBe(303);
    expect(edited.headers.get('location')).toBe(`${PATH}/${id}?aviso=salvo`);
    const product = (await api.as(key).get(`/products/${id}`)).body;
    expect(product).toMatchObject({
      nome: 'Ebook 2ª edição',
      preco: 19.9,
      descricao: null,
      garantia: '30 dias',
    });
    expect(product.slug).toBe('ebook'); // an empty slug field keeps it
    expect(await eventsOf(id)).toEqual(['product.created', 'product.updated']);
    expect(await productAudit()).toContain(
      `product_updated: Ebook 2ª edição (${product.codigo}): nome, descricao, preco`,
    );

    // The same form again changes nothing: no event, no audit entry.
    const again = await post(
      'editor',
      `${PATH}/${id}`,
      form({ nome: 'Ebook 2ª edição', preco: '19.90', garantia: '30 dias', slug: 'ebook' }),
    );
    expect(again.status).toBe(303);
    expect(await eventsOf(id)).toEqual(['product.created', 'product.updated']);
  });

  it('archives and reactivates through the API service; the lists and the purchase page follow', async () => {
    const id = await create({ nome: 'Mentoria', preco: '500', slug: 'mentoria' });
    const archived = await post('owner', `${PATH}/${id}/arquivar`);
    expect(archived.status).toBe(303);
    expect((await api.as(key).get(`/products/${id}`)).body.ativo).toBe(false);
    expect((await fetch(`${api.baseUrl}/p/${handle}/mentoria`)).status).toBe(404);
    expect((await get('viewer', PATH)).text).not.toContain(`${PATH}/${id}"`);
    expect((await get('viewer', `${PATH}?status=arquivados`)).text).toContain(`${PATH}/${id}"`);
    const page = await get('editor', `${PATH}/${id}`);
    expect(page.text).toContain('>Reativar</button>');
    expect(page.text).not.toContain('>Arquivar</button>');
    // Archiving twice writes nothing more.
    expect((await post('editor', `${PATH}/${id}/arquivar`)).status).toBe(303);

    expect((await post('editor', `${PATH}/${id}/reativar`)).status).toBe(303);
    expect((await api.as(key).get(`/products/${id}`)).body.ativo).toBe(true);
    expect((await fetch(`${api.baseUrl}/p/${handle}/mentoria`)).status).toBe(200);
    expect(await eventsOf(id)).toEqual(['product.created', 'product.archived', 'product.updated']);
    const codigo = (await api.as(key).get(`/products/${id}`)).body.codigo;
    const entries = await productAudit();
    expect(entries.filter((e) => e.includes(codigo))).toEqual([
      `product_created: Mentoria (${codigo})`,
      `product_archived: Mentoria (${codigo})`,
      `product_reactivated: Mentoria (${codigo})`,
    ]);
  });

  it('refuses a bad field with its message by the field, keeps what was typed, and writes nothing', async () => {
    const taken = await create({ nome: 'Ocupado', preco: '1', slug: 'ocupado' });
    const before = await productCount();
    const events = await api.count('events');
    const cases: [Record<string, string>, string][] = [
      [{ nome: 'x', preco: '1.000.000,01' }, 'preco'],
      [{ nome: 'x', preco: '19,999' }, 'preco'],
      [{ nome: 'x', preco: 'dez reais' }, 'preco'],
      [{ nome: 'x', preco: '0', recorrencia: 'mensal' }, 'preco'],
      [{ nome: 'n'.repeat(121), preco: '1' }, 'nome'],
      [{ nome: '   ', preco: '1' }, 'nome'],
      [{ nome: 'x', preco: '1', slug: 'Com Espaço' }, 'slug'],
      [{ nome: 'x', preco: '1', slug: 'ocupado' }, 'slug'],
      [{ nome: 'x', preco: '1', garantia: 'g'.repeat(501) }, 'garantia'],
      [{ nome: 'x', preco: '1', order_bump_codigo: 'PRD-NAOEXISTE' }, 'order_bump_codigo'],
      [{ nome: 'x', preco: '1', checkout_id: '00000000-0000-4000-8000-000000000000' }, 'checkout_id'],
      [{ nome: 'x', preco: '1', recorrencia: 'diaria' }, 'recorrencia'],
      [{ nome: 'x', preco: '1', delivery_email_body: 'b'.repeat(3001) }, 'delivery_email_body'],
    ];
    for (const [fields, field] of cases) {
      const res = await post('editor', PATH, form(fields));
      expect(res.status, `${field} ${JSON.stringify(fields).slice(0, 80)}`).toBe(400);
      expect(fieldError(res.text, field), field).toBeTruthy();
      expect(res.text).toContain(`aria-invalid="true"`);
      expect(res.text).toContain('Nada foi salvo');
    }
    // What was typed is shown again.
    const refused = await post('editor', PATH, form({ nome: 'Meu Curso', preco: '1.000.000,01' }));
    expect(refused.text).toContain('value="Meu Curso"');
    expect(refused.text).toContain('value="1.000.000,01"');
    expect(await productCount()).toBe(before);
    expect(await api.count('events')).toBe(events);

    // An edit refused the same way leaves the product as it was.
    const edit = await post('editor', `${PATH}/${taken}`, form({ nome: 'Ocupado', preco: '-1' }));
    expect(edit.status).toBe(400);
    expect(fieldError(edit.text, 'preco')).toBeTruthy();
    expect((await api.as(key).get(`/products/${taken}`)).body.preco).toBe(1);
  });

  it('refuses an image that is not an http(s) URL, as the API does, saying so', async () => {
    const before = await productCount();
    for (const imagem of ['javascript:alert(1)', 'data:image/png;base64,AA', 'ftp://cdn.example.com/a.png']) {
      const res = await post('editor', PATH, form({ nome: 'Imagem', preco: '1', imagem }));
      expect(res.status, imagem).toBe(400);
      expect(fieldError(res.text, 'imagem')).toContain('https://');
    }
    expect(await productCount()).toBe(before);
    const ok = await post(
      'editor',
      PATH,
      form({ nome: 'Imagem', preco: '1', imagem: 'https://cdn.example.com/a.png' }),
    );
    expect(ok.status).toBe(303);
  });

  it('accepts the limits themselves: 120-character name, R$ 1.000.000,00, R$ 0,00 sold once', async () => {
    const id = await create({ nome: 'n'.repeat(120), preco: '1.000.000,00', garantia: 'g'.repeat(500) });
    expect((await api.as(key).get(`/products/${id}`)).body).toMatchObject({
      preco: 1_000_000,
      nome: 'n'.repeat(120),
    });
    const free = await create({ nome: 'Grátis', preco: '0,00' });
    expect((await api.as(key).get(`/products/${free}`)).body.preco).toBe(0);
  });

  it('viewers read only: no form, every POST 403 and nothing changes', async () => {
    const id = await create({ nome: 'Só leitura', preco: '5' });
    const list = await get('viewer', PATH);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('Novo produto');
    const page = await get('viewer', `${PATH}/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Só leitura');
    expect(page.text).not.toContain('name="nome"');
    expect(page.text).not.toContain('>Arquivar</button>');
    expect((await get('viewer', `${PATH}/novo`)).status).toBe(403);
    const before = await productCount();
    expect((await post('viewer', PATH, form({ nome: 'Intruso', preco: '1' }))).status).toBe(403);
    expect((await post('viewer', `${PATH}/${id}`, form({ nome: 'Mudado', preco: '1' }))).status).toBe(403);
    expect((await post('viewer', `${PATH}/${id}/arquivar`)).status).toBe(403);
    expect(await productCount()).toBe(before);
    expect((await api.as(key).get(`/products/${id}`)).body).toMatchObject({
      nome: 'Só leitura',
      ativo: true,
    });
  });

  it('refuses a POST without the CSRF token (403) and writes nothing', async () => {
    const before = await productCount();
    const res = await dashboardRequest(
      api.baseUrl,
      sessions.editor,
      'POST',
      PATH,
      form({ nome: 'Sem token', preco: '1' }),
      {
        csrf: false,
      },
    );
    expect(res.status).toBe(403);
    expect(await productCount()).toBe(before);
  });

  it("answers 404 for another store's product by URL, and changes nothing there", async () => {
    const other = await api.createStore({ name: 'Outra Loja' });
    const foreign = (await api.as(other.key).post('/products', { nome: 'Alheio', preco: 3 })).body;
    expect((await get('owner', `${PATH}/${foreign.id}`)).status).toBe(404);
    expect((await post('owner', `${PATH}/${foreign.id}`, form({ nome: 'Roubado', preco: '1' }))).status).toBe(
      404,
    );
    expect((await post('owner', `${PATH}/${foreign.id}/arquivar`)).status).toBe(404);
    expect((await get('owner', `${PATH}/nao-e-um-id`)).status).toBe(404);
    expect((await api.as(other.key).get(`/products/${foreign.id}`)).body).toMatchObject({
      nome: 'Alheio',
      ativo: true,
    });
    // Its code is not this store's either: the order bump refuses it.
    const res = await post(
      'editor',
      PATH,
      form({ nome: 'x', preco: '1', order_bump_codigo: foreign.codigo }),
    );
    expect(res.status).toBe(400);
    expect(fieldError(res.text, 'order_bump_codigo')).toBeTruthy();
  });

  it('escapes merchant strings in the list, the page and the form', async () => {
    const id = (await api.as(key).post('/products', { nome: HOSTILE, preco: 1, descricao: HOSTILE })).body.id;
    for (const res of [
      await get('viewer', PATH),
      await get('viewer', `${PATH}/${id}`),
      await get('editor', `${PATH}/${id}`),
    ]) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<script>alert(1)');
      expect(res.text).not.toContain('<b>');
      expect(res.text).toContain('&lt;script>alert(1)&lt;/script>');
    }
  });

  it('pages 50 products at a time, newest first, for active and archived lists', async () => {
    const shop = await api.createStore({ name: 'Loja Grande' });
    const owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'owner'));
    const ids: string[] = [];
    for (let i = 0; i < 53; i++)
      ids.push((await api.as(shop.key).post('/products', { nome: `P${i}`, preco: 1 })).body.id);
    await api.as(shop.key).post(`/products/${ids[0]}/archive`);
    const listed = (html: string) =>
      [...html.matchAll(/href="\/dashboard\/produtos\/([0-9a-f-]{36})"/g)].map((m) => m[1]!);
    const first = await dashboardRequest(api.baseUrl, owner, 'GET', PATH);
    expect(listed(first.text)).toHaveLength(50);
    const more = /<a href="(\/dashboard\/produtos\?antes=[^"]+)">Mais antigos<\/a>/
      .exec(first.text)![1]!
      .replace(/&amp;/g, '&');
    const second = await dashboardRequest(api.baseUrl, owner, 'GET', more);
    // Newest first by (created_at, id): products made in the same millisecond fall back to the id.
    const active = await api.db
      .selectFrom('products')
      .select('id')
      .where('store_id', '=', shop.storeId)
      .where('id', '!=', ids[0]!)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    expect([...listed(first.text), ...listed(second.text)]).toEqual(active.map((row) => row.id));
    expect(new Set(active.map((row) => row.id))).toEqual(new Set(ids.slice(1)));
    const archived = await dashboardRequest(api.baseUrl, owner, 'GET', `${PATH}?status=arquivados`);
    expect(listed(archived.text)).toEqual([ids[0]]);
  });
});
