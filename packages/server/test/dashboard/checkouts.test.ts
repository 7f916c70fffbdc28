import { beforeAll, expect, it } from 'vitest';
import { addDashboardUser, dashboardLogin, dashboardRequest, memberPerRole } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { createShop } from '../pages/page-support.js';
import { auditOf } from '../support/store-records.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';

const PATH = '/dashboard/checkouts';
const HOSTILE = '<script>alert("x")</script>&"\'';
/** The hostile string as escaped text or attribute (the renderer escapes `<`, `&` and `"`). */
const ESCAPED = /&lt;script(?:&gt;|>)alert\(&quot;x&quot;\)&lt;\/script(?:&gt;|>)&amp;&quot;/;

/** Every field of the editor as a browser sends it: checkboxes only when ticked. */
function editorForm(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const form: Record<string, string | undefined> = {
    name: 'Checkout de Natal',
    checkout_titulo: 'Feliz Natal',
    checkout_subtitulo: 'Só hoje',
    checkout_descricao: 'Tudo com desconto.',
    checkout_garantia: 'Garantia de 30 dias',
    checkout_logo_enabled: 'on',
    checkout_logo_url: 'https://cdn.example/logo.png',
    checkout_banner_url: '',
    checkout_fundo_tipo: 'gradiente',
    checkout_fundo_cor: '#C0FFEE',
    checkout_fundo_imagem: '',
    checkout_cupom_enabled: 'on',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(form).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}

/** The id in the Location of the redirect after creating. */
const createdId = (location: string | null) =>
  /\/dashboard\/checkouts\/([0-9a-f-]{36})\?aviso=criado$/.exec(location ?? '')![1]!;

describeEachDatabase(
  'dashboard Checkouts',
  (api: TestApi) => {
    let key: string;
    let storeId: string;
    let defaultId: string;
    let owner: DashboardSession;
    let editor: DashboardSession;
    let viewer: DashboardSession;
    let stranger: DashboardSession;
    const members = memberPerRole(api);
    const get = (session: DashboardSession, path = '') =>
      dashboardRequest(api.baseUrl, session, 'GET', `${PATH}${path}`);
    const post = (session: DashboardSession, path: string, form: Record<string, string> = {}) =>
      dashboardRequest(api.baseUrl, session, 'POST', `${PATH}${path}`, form);
    const apiCheckout = async (id: string) => (await api.as(key).get(`/checkouts/${id}`)).body;
    const checkoutRows = () =>
      api.db.selectFrom('checkouts').selectAll().where('store_id', '=', storeId).orderBy('id').execute();
    const events = async (type: string) =>
      (
        await api.db
          .selectFrom('events')
          .select('payload')
          .where('store_id', '=', storeId)
          .where('type', '=', type)
          .execute()
      ).map((row) => JSON.parse(row.payload).data.object);
    const audits = () => auditOf(api, storeId);

    beforeAll(async () => {
      ({ key, storeId, defaultCheckoutId: defaultId } = await api.createStore({ name: 'Loja Checkouts' }));
      await members.signIn(storeId);
      ({ owner, editor, viewer } = members.sessions);
      const other = await api.createStore({ name: 'Outra loja' });
      stranger = await dashboardLogin(api.baseUrl, await addDashboardUser(api, other.storeId, 'owner'));
    });

    it('creates in the dashboard the API’s checkout, with checkout.created and an audit entry', async () => {
      const form = await get(editor, '/novo');
      expect(form.status).toBe(200);
      // A new checkout starts from the default look.
      expect(form.text).toContain('value="Finalize sua compra"');
      const created = await post(editor, '', editorForm());
      expect(created.status).toBe(303);
      const id = createdId(created.headers.get('location'));
      const checkout = await apiCheckout(id);
      expect(checkout).toMatchObject({
        name: 'Checkout de Natal',
        is_default: false,
        archived: false,
        banner_url: null,
        settings_json: {
          checkout_titulo: 'Feliz Natal',
          checkout_subtitulo: 'Só hoje',
          checkout_descricao: 'Tudo com desconto.',
          checkout_garantia: 'Garantia de 30 dias',
          checkout_logo_enabled: true,
          checkout_logo_url: 'https://cdn.example/logo.png',
          checkout_banner_enabled: false,
          checkout_banner_url: null,
          checkout_selos_enabled: false,
          checkout_cupom_enabled: true,
          checkout_fundo_tipo: 'gradiente',
          checkout_fundo_cor: '#C0FFEE',
          checkout_fundo_imagem: null,
        },
      });
      expect((await events('checkout.created')).find((c) => c.id === id)).toEqual(checkout);
      expect(await audits()).toContain('checkout_created: Checkout de Natal');
      const page = await get(editor, `/${id}?aviso=criado`);
      expect(page.text).toContain('Checkout criado.');
      expect(page.text).toContain('value="Feliz Natal"');
    });

    it('saves an edit through the API’s service: the API shows it, checkout.updated, audit names what changed', async () => {
      const id = (await api.as(key).post('/checkouts', { name: 'Editável' })).body.id;
      const saved = await post(
        owner,
        `/${id}`,
        editorForm({ name: 'Editado', checkout_titulo: 'Novo título', checkout_logo_enabled: undefined }),
      );
      expect(saved.status).toBe(303);
      expect(saved.headers.get('location')).toBe(`${PATH}/${id}?aviso=salvo`);
      const checkout = await apiCheckout(id);
      expect(checkout.name).toBe('Editado');
      expect(checkout.settings_json.checkout_titulo).toBe('Novo título');
      expect(checkout.settings_json.checkout_logo_enabled).toBe(false);
      expect((await events('checkout.updated')).filter((c) => c.id === id).at(-1)).toEqual(checkout);
      const entry = (await audits()).find((line) => line.startsWith('checkout_updated: Editável → Editado'));
      expect(entry).toContain('checkout_titulo');
      // The default checkout is editable too, and new checkouts inherit from it (the API's rule).
      expect(
        (await post(editor, `/${defaultId}`, editorForm({ name: 'Padrão', checkout_garantia: 'Sete dias' })))
          .status,
      ).toBe(303);
      const child = await api.as(key).post('/checkouts', { name: 'Herdeiro' });
      expect(child.body.settings_json.checkout_garantia).toBe('Sete dias');
    });

    it('names every wrong field with the API’s rules and changes nothing', async () => {
      const id = (await api.as(key).post('/checkouts', { name: 'Intacto' })).body.id;
      const before = await checkoutRows();
      const refused = await post(
        editor,
        `/${id}`,
        editorForm({
          name: '   ',
          checkout_titulo: '',
          checkout_fundo_cor: 'vermelho',
          checkout_logo_url: 'javascript:alert(1)',
          checkout_fundo_tipo: 'video',
        }),
      );
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('nada foi salvo');
      const errorOf = (field: string) => new RegExp(`id="f-${field}-error">([^<]+)<`).exec(refused.text)?.[1];
      expect(errorOf('name')).toBe('Preencha este campo.');
      expect(errorOf('checkout_titulo')).toBe('Preencha este campo.');
      expect(errorOf('checkout_fundo_cor')).toContain('#RGB ou #RRGGBB');
      expect(errorOf('checkout_logo_url')).toContain('http:// ou https://');
      expect(errorOf('checkout_fundo_tipo')).toBe('Escolha Cor, Imagem ou Gradiente.');
      expect(errorOf('checkout_garantia')).toBeUndefined();
      expect(refused.text).toMatch(/id="f-checkout_fundo_cor"[^>]*aria-invalid="true"/);
      // What was typed stays in the form to be fixed.
      expect(refused.text).toContain('value="vermelho"');
      expect(await checkoutRows()).toEqual(before);

      const creating = await post(editor, '', editorForm({ checkout_fundo_cor: '#12345' }));
      expect(creating.status).toBe(400);
      expect(creating.text).toContain('id="f-checkout_fundo_cor-error"');
      expect(await checkoutRows()).toEqual(before);
    });

    it('takes each text up to its limit and refuses one character more', async () => {
      const id = (await api.as(key).post('/checkouts', { name: 'Limites' })).body.id;
      const url = (length: number) =>
        `https://cdn.example/${'a'.repeat(length - 'https://cdn.example/'.length)}`;
      const cases: [string, string, string][] = [
        ['name', 'n'.repeat(120), 'n'.repeat(121)],
        ['checkout_titulo', 't'.repeat(120), 't'.repeat(121)],
        ['checkout_subtitulo', 's'.repeat(200), 's'.repeat(201)],
        ['checkout_descricao', 'd'.repeat(2000), 'd'.repeat(2001)],
        ['checkout_garantia', 'g'.repeat(120), 'g'.repeat(121)],
        ['checkout_banner_url', url(1000), url(1001)],
      ];
      for (const [field, fits, over] of cases) {
        expect((await post(editor, `/${id}`, editorForm({ [field]: fits }))).status, field).toBe(303);
        const stored = await apiCheckout(id);
        expect(field === 'name' ? stored.name : stored.settings_json[field], field).toBe(fits);
        const refused = await post(editor, `/${id}`, editorForm({ [field]: over }));
        expect(refused.status, field).toBe(400);
        expect(refused.text, field).toContain(`id="f-${field}-error">Use no máximo`);
        expect(await apiCheckout(id), field).toEqual(stored);
      }
    });

    it('archives and unarchives through the API’s service; the default checkout cannot be archived', async () => {
      const id = (await api.as(key).post('/checkouts', { name: 'Arquivável' })).body.id;
      const product = (await api.as(key).post('/products', { nome: 'Ligado', preco: 10, checkout_id: id }))
        .body;
      expect((await get(editor, `/${id}`)).text).toContain('>Arquivar<');
      const archived = await post(editor, `/${id}/arquivar`);
      expect(archived.status).toBe(303);
      expect((await apiCheckout(id)).archived).toBe(true);
      // The API's rule: its products fall back to the default checkout.
      expect((await api.as(key).get(`/products/${product.id}`)).body.checkout_id).toBeNull();
      expect((await get(editor, `/${id}?aviso=arquivado`)).text).toContain('>Desarquivar<');
      // Again: idempotent, no second event or audit entry.
      expect((await post(editor, `/${id}/arquivar`)).status).toBe(303);
      expect((await events('checkout.archived')).filter((c) => c.id === id)).toHaveLength(1);
      expect((await audits()).filter((line) => line === 'checkout_archived: Arquivável')).toHaveLength(1);
      expect((await post(editor, `/${id}/desarquivar`)).status).toBe(303);
      expect((await apiCheckout(id)).archived).toBe(false);
      expect(await audits()).toContain('checkout_unarchived: Arquivável');

      expect((await get(owner, `/${defaultId}`)).text).not.toContain('>Arquivar<');
      const refused = await post(owner, `/${defaultId}/arquivar`);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('O checkout padrão não pode ser arquivado.');
      expect((await apiCheckout(defaultId)).archived).toBe(false);
    });

    it('lists newest first, 50 a page, with the archived filter', async () => {
      const { storeId: listStore, key: listKey } = await api.createStore({ name: 'Loja Lista' });
      const reader = await dashboardLogin(api.baseUrl, await addDashboardUser(api, listStore, 'viewer'));
      // The default one plus 50: one more than a page.
      for (let i = 1; i <= 50; i++) await api.as(listKey).post('/checkouts', { name: `Lista ${i}` });
      const archived = (await api.as(listKey).post('/checkouts', { name: 'Guardado' })).body.id;
      await api.as(listKey).post(`/checkouts/${archived}/archive`);
      const first = await get(reader);
      expect(first.status).toBe(200);
      const names = [
        ...first.text.matchAll(/<a href="\/dashboard\/checkouts\/[0-9a-f-]{36}">([^<]+)<\/a>/g),
      ].map((m) => m[1]);
      // Newest first by (created_at, id): checkouts made in the same millisecond fall back to the id.
      const stored = await api.db
        .selectFrom('checkouts')
        .select('name')
        .where('store_id', '=', listStore)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      expect(stored).toHaveLength(52);
      expect(names).toEqual(stored.slice(0, 50).map((row) => row.name));
      const older = /href="(\/dashboard\/checkouts\?antes=[^"]+)"/
        .exec(first.text)![1]!
        .replaceAll('&amp;', '&');
      const second = await dashboardRequest(api.baseUrl, reader, 'GET', older);
      const rest = [
        ...second.text.matchAll(/<a href="\/dashboard\/checkouts\/[0-9a-f-]{36}">([^<]+)<\/a>/g),
      ].map((m) => m[1]);
      expect(rest).toEqual(stored.slice(50).map((row) => row.name));
      expect(new Set([...names, ...rest])).toEqual(
        new Set(['Guardado', 'Checkout padrão', ...Array.from({ length: 50 }, (_, i) => `Lista ${i + 1}`)]),
      );
      expect(second.text).not.toContain('Mais antigos');
      const onlyArchived = await get(reader, '?status=arquivados');
      expect(onlyArchived.text).toContain('>Guardado<');
      expect(onlyArchived.text).not.toContain('>Lista 1<');
      // A reader sees no "Novo checkout".
      expect(first.text).not.toContain('Novo checkout');
    });

    it('lets a viewer read the list, editor and preview, and answers 403 to every change, changing nothing', async () => {
      const id = (await api.as(key).post('/checkouts', { name: 'Só leitura' })).body.id;
      expect((await get(viewer)).status).toBe(200);
      const page = await get(viewer, `/${id}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('>Salvar<');
      expect(page.text).toMatch(/<fieldset[^>]*disabled/);
      expect((await get(viewer, `/${id}/pre-visualizacao`)).status).toBe(200);
      const before = await checkoutRows();
      for (const path of [
        '',
        `/${id}`,
        `/${id}/arquivar`,
        `/${id}/desarquivar`,
        '/pre-visualizacao',
        `/${id}/pre-visualizacao`,
      ]) {
        const refused = await post(viewer, path, editorForm({ name: 'Tomado' }));
        expect(refused.status, path).toBe(403);
      }
      expect((await get(viewer, '/novo')).status).toBe(403);
      expect(await checkoutRows()).toEqual(before);
    });

    it('refuses a change without the CSRF token or from another origin', async () => {
      const id = (await api.as(key).post('/checkouts', { name: 'Protegido' })).body.id;
      const before = await checkoutRows();
      const noToken = await dashboardRequest(api.baseUrl, editor, 'POST', `${PATH}/${id}`, editorForm(), {
        csrf: false,
      });
      expect(noToken.status).toBe(403);
      const wrongToken = await dashboardRequest(
        api.baseUrl,
        editor,
        'POST',
        `${PATH}/${id}`,
        {
          ...editorForm(),
          _csrf: 'x'.repeat(43),
        },
        { csrf: false },
      );
      expect(wrongToken.status).toBe(403);
      const foreign = await dashboardRequest(
        api.baseUrl,
        editor,
        'POST',
        `${PATH}/${id}/arquivar`,
        {},
        {
          headers: { origin: 'https://evil.example' },
        },
      );
      expect(foreign.status).toBe(403);
      const preview = await dashboardRequest(
        api.baseUrl,
        editor,
        'POST',
        `${PATH}/pre-visualizacao`,
        editorForm(),
        {
          csrf: false,
        },
      );
      expect(preview.status).toBe(403);
      expect(await checkoutRows()).toEqual(before);
      // Signed out: the pages send to the login, a change is refused.
      expect(
        (await dashboardRequest(api.baseUrl, null, 'GET', `${PATH}/${id}/pre-visualizacao`)).status,
      ).toBe(303);
      expect(
        (await dashboardRequest(api.baseUrl, null, 'POST', `${PATH}/pre-visualizacao`, editorForm())).status,
      ).toBe(403);
    });

    it('answers 404 for another store’s checkout by URL, and for a malformed id', async () => {
      const id = (await api.as(key).post('/checkouts', { name: 'Só desta loja' })).body.id;
      const before = await checkoutRows();
      expect((await get(stranger, `/${id}`)).status).toBe(404);
      expect((await get(stranger, `/${id}/pre-visualizacao`)).status).toBe(404);
      expect((await post(stranger, `/${id}`, editorForm())).status).toBe(404);
      expect((await post(stranger, `/${id}/arquivar`)).status).toBe(404);
      expect((await post(stranger, `/${id}/pre-visualizacao`, editorForm())).status).toBe(404);
      expect((await get(owner, '/nao-existe')).status).toBe(404);
      expect(await checkoutRows()).toEqual(before);
    });

    it('escapes merchant strings in the list, the editor and the preview', async () => {
      const id = (
        await api.as(key).post('/checkouts', {
          name: HOSTILE,
          settings_json: { checkout_titulo: HOSTILE, checkout_descricao: HOSTILE },
        })
      ).body.id;
      const list = await get(owner);
      const editorPage = await get(owner, `/${id}`);
      const preview = await get(owner, `/${id}/pre-visualizacao`);
      const unsaved = await post(
        owner,
        `/${id}/pre-visualizacao`,
        editorForm({ checkout_subtitulo: HOSTILE }),
      );
      for (const [name, page] of Object.entries({ list, editorPage, preview, unsaved })) {
        expect(page.status, name).toBe(200);
        expect(page.text, name).not.toContain('<script>alert');
      }
      expect(list.text).toMatch(ESCAPED);
      expect(editorPage.text).toMatch(ESCAPED);
      expect(preview.text).toMatch(ESCAPED);
      expect(unsaved.text).toMatch(ESCAPED);
    });

    it('previews the real purchase page: unsaved settings, framed by this origin only, no order, no page view', async () => {
      const shop = await createShop(api, {}, 'Loja Prévia');
      const shopOwner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'owner'));
      const before = await api.db
        .selectFrom('checkouts')
        .selectAll()
        .where('store_id', '=', shop.storeId)
        .execute();
      const preview = await dashboardRequest(
        api.baseUrl,
        shopOwner,
        'POST',
        `${PATH}/${shop.checkoutId}/pre-visualizacao`,
        editorForm({
          checkout_titulo: 'Título ainda não salvo',
          checkout_fundo_cor: 'errada',
          checkout_banner_enabled: 'on',
          checkout_banner_url: 'https://img.example/banner.png',
        }),
      );
      expect(preview.status).toBe(200);
      expect(preview.text).toContain('<h1>Título ainda não salvo</h1>');
      expect(preview.text).toContain('Pré-visualização: esta página não faz pedidos.');
      // The real page's pieces, with no order URL and no script.
      expect(preview.text).toContain('id="order-form"');
      expect(preview.text).not.toContain('data-order-url');
      expect(preview.text).not.toContain('<script');
      // A wrong colour is drawn as saved; the right banner shows, its origin allowed for images only.
      expect(preview.text).toContain('background:linear-gradient(160deg,#F5F5F5');
      expect(preview.text).toContain('src="https://img.example/banner.png"');
      const csp = preview.headers.get('content-security-policy')!;
      expect(csp).toContain("frame-ancestors 'self'");
      expect(csp).toContain("form-action 'none'");
      expect(csp).toContain("connect-src 'none'");
      expect(csp).toMatch(/img-src 'self' data:[^;]* https:\/\/img\.example[ ;]/);
      expect(preview.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      const saved = await dashboardRequest(
        api.baseUrl,
        shopOwner,
        'GET',
        `${PATH}/${shop.checkoutId}/pre-visualizacao`,
      );
      expect(saved.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
      expect(saved.text).toContain('<h1>Finalize sua compra</h1>');
      // Nothing saved, and every other page still refuses framing.
      expect(
        await api.db.selectFrom('checkouts').selectAll().where('store_id', '=', shop.storeId).execute(),
      ).toEqual(before);
      for (const path of [PATH, `${PATH}/${shop.checkoutId}`, '/dashboard']) {
        const page = await dashboardRequest(api.baseUrl, shopOwner, 'GET', path);
        expect(page.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
        expect(page.headers.get('x-frame-options'), path).toBe('DENY');
      }
      // The editor may frame this origin's pages, and is itself never framed.
      const editorPage = await dashboardRequest(api.baseUrl, shopOwner, 'GET', `${PATH}/${shop.checkoutId}`);
      expect(editorPage.headers.get('content-security-policy')).toContain("frame-src 'self'");
      const publicPage = await fetch(`${api.baseUrl}${shop.pagePath}`);
      expect(publicPage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(publicPage.headers.get('x-frame-options')).toBe('DENY');

      // Page views: the public page counts (flushed every 50 ms here), the previews never do.
      const views = async () =>
        (
          await api.db
            .selectFrom('analytics_daily')
            .select('page_views')
            .where('store_id', '=', shop.storeId)
            .where('product_id', '=', '*')
            .execute()
        ).reduce((sum, row) => sum + Number(row.page_views), 0);
      await eventually(async () => (await views()) === 1, 3000);
      for (let i = 0; i < 3; i++)
        await dashboardRequest(api.baseUrl, shopOwner, 'GET', `${PATH}/${shop.checkoutId}/pre-visualizacao`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await views()).toBe(1);
      expect(await api.count('orders')).toBe(0);
    });
  },
  { config: { pageViewFlushMs: 50 } },
);
