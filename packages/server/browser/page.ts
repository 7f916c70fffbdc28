/*
 * The purchase pages' only script (no framework): the product page's form, coupon and bump totals,
 * and the order page's copy button, countdown and live status (Server-Sent Events, polling when
 * they fail). Every message shown comes from the server; this file only places it.
 */

interface OrderStatus {
  status:
    'pending' | 'paid' | 'expired' | 'canceled' | 'requires_action' | 'processing' | 'declined' | 'gone';
  expires_at?: string | null;
  access_links?: { name: string; url: string }[];
  card?: { decline_message: string | null; next_action_url: string | null } | null;
}

interface CardAnswer {
  status: string;
  next_action_url: string | null;
  decline_message: string | null;
}

interface InstallmentOption {
  installments: number;
  installment_amount: number;
  total_amount: number;
  interest_free: boolean;
}

/** The card the PSP's script tokenized: what the order carries instead of a card number. */
interface CardToken {
  token: string;
  brand?: string;
  issuer_id?: string;
}

/* The PSPs' scripts, as far as this page uses them. */
interface MercadoPagoField {
  mount(id: string): MercadoPagoField;
  on(event: 'binChange', listener: (data: { bin?: string }) => void): void;
}
interface MercadoPagoSdk {
  fields: {
    create(type: string, options?: Record<string, unknown>): MercadoPagoField;
    createCardToken(data: Record<string, string>): Promise<{ id: string }>;
  };
  getPaymentMethods(query: { bin: string }): Promise<{ results: { id: string; issuer?: { id: number } }[] }>;
}
declare const MercadoPago: new (publicKey: string, options?: Record<string, unknown>) => MercadoPagoSdk;
declare const PagarmeCheckout: {
  init(success: (data: Record<string, string>) => boolean, fail: (error: unknown) => void): void;
};

interface ErrorAnswer {
  error?: { message?: string };
  fields?: Record<string, string>;
}

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T | null;

async function postJson(url: string, body: unknown): Promise<{ status: number; data: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  let data: unknown = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { status: response.status, data };
}

function show(element: HTMLElement | null, text: string | null): void {
  if (!element) return;
  element.textContent = text ?? '';
  element.hidden = !text;
}

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const brl = (value: number) => BRL.format(value).replace(/\s/u, ' ');

/** "3x de R$ 33,33 sem juros", or "12x de R$ 99,70 (total R$ 1.196,40)" (the server words it the same). */
function installmentLabel(option: InstallmentOption): string {
  const each = `${option.installments}x de ${brl(option.installment_amount)}`;
  return option.interest_free ? `${each} sem juros` : `${each} (total ${brl(option.total_amount)})`;
}

/** Loads a PSP's script once, under this page's nonce (the CSP names its origin on this store's pages). */
function loadScript(src: string, attributes: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.nonce = (document.querySelector('script[nonce]') as HTMLScriptElement | null)?.nonce ?? '';
    for (const [name, value] of Object.entries(attributes)) script.setAttribute(name, value);
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(src));
    document.head.append(script);
  });
}

/**
 * The card tab: the installments for the order's current total (and the card's BIN at Mercado Pago),
 * and the token of the card — the test card chosen, or the PSP's script's — when the buyer pays.
 */
function cardTab(
  form: HTMLFormElement,
  panel: HTMLElement,
  quoteChoice: () => { bump: boolean; coupon: string },
) {
  const provider = panel.dataset.provider;
  const select = byId<HTMLSelectElement>('installments')!;
  const total = byId('total');
  let bin = '';
  let brand = '';
  let issuer = '';
  let options: InstallmentOption[] = [];
  let ready: Promise<void> | null = null;
  let mp: MercadoPagoSdk | null = null;
  let pagarme: { resolve: (token: CardToken) => void; reject: (error: Error) => void } | null = null;

  function showTotal(): void {
    const chosen = options.find((option) => String(option.installments) === select.value);
    if (total && chosen) total.textContent = brl(chosen.total_amount);
  }

  async function refresh(): Promise<void> {
    const { bump, coupon } = quoteChoice();
    const query = new URLSearchParams({ bump: String(bump), ...(coupon && { coupon }), ...(bin && { bin }) });
    try {
      const response = await fetch(`${form.dataset.installmentsUrl}?${query}`, { cache: 'no-store' });
      const data = (await response.json()) as { options?: InstallmentOption[] } & ErrorAnswer;
      if (!response.ok) {
        fieldError('installments', data.error?.message ?? 'Não foi possível calcular as parcelas.');
        return;
      }
      const previous = select.value;
      options = data.options ?? [];
      select.replaceChildren(
        ...options.map((option) => new Option(installmentLabel(option), String(option.installments))),
      );
      if (options.some((option) => String(option.installments) === previous)) select.value = previous;
      fieldError('installments', null);
      showTotal();
    } catch {
      fieldError('installments', 'Sem conexão. Verifique sua internet e tente novamente.');
    }
  }

  async function loadProvider(): Promise<void> {
    const { script, publicKey } = panel.dataset;
    if (!script || !publicKey) return;
    if (provider === 'mercadopago') {
      await loadScript(script);
      mp = new MercadoPago(publicKey, { locale: 'pt-BR' });
      mp.fields
        .create('cardNumber', { placeholder: 'Número do cartão' })
        .mount('card-number')
        .on('binChange', (data) => {
          void (async () => {
            if (!data.bin || data.bin === bin) return;
            bin = data.bin;
            const method = (await mp!.getPaymentMethods({ bin })).results[0];
            brand = method?.id ?? '';
            issuer = method?.issuer ? String(method.issuer.id) : '';
            await refresh();
          })();
        });
      mp.fields.create('expirationDate', { placeholder: 'MM/AA' }).mount('card-expiry');
      mp.fields.create('securityCode', { placeholder: 'CVV' }).mount('card-cvv');
    } else if (provider === 'pagarme') {
      await loadScript(script, { 'data-pagarmecheckout-app-id': publicKey });
      // tokenizecard.js tokenizes the form's marked fields on submit and hands the token here; false
      // keeps it from submitting the form itself (this script posts the order).
      PagarmeCheckout.init(
        (data) => {
          pagarme?.resolve({ token: data['pagarmetoken-0'] ?? '', ...(data.brand && { brand: data.brand }) });
          return false;
        },
        () => pagarme?.reject(new Error('card')),
      );
    }
  }

  return {
    open(): void {
      ready ??= loadProvider().catch(() =>
        fieldError('installments', 'Não foi possível carregar o pagamento com cartão. Pague com Pix.'),
      );
      void refresh();
    },
    refresh,
    showTotal,
    select,
    /** The card's token, or an Error whose message the buyer reads. */
    async token(buyer: { name: string; document: string }): Promise<CardToken> {
      await ready;
      if (provider === 'simulated') return { token: byId<HTMLSelectElement>('test-card')!.value };
      if (provider === 'mercadopago' && mp) {
        const document = buyer.document.replace(/\D/g, '');
        const created = await mp.fields.createCardToken({
          cardholderName: byId<HTMLInputElement>('card-holder')?.value || buyer.name,
          identificationType: document.length === 14 ? 'CNPJ' : 'CPF',
          identificationNumber: document,
        });
        return { token: created.id, ...(brand && { brand }), ...(issuer && { issuer_id: issuer }) };
      }
      if (provider === 'pagarme') return new Promise((resolve, reject) => (pagarme = { resolve, reject }));
      throw new Error('card');
    },
  };
}

/* ---------- product page ---------- */

const FIELDS = ['name', 'email', 'document', 'whatsapp', 'coupon'];

function fieldError(field: string, message: string | null): void {
  const input = byId<HTMLInputElement>(field);
  if (!input) return;
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  show(byId(`${field}-error`), message);
}

/**
 * The campaign parameters of this page's own URL (the keys the server names on the form), sent with
 * the order. Cut to 200 characters, as the server keeps them; NUL, which no text field may hold, is
 * dropped.
 */
function urlTracking(form: HTMLFormElement): Record<string, string> {
  const params = new URLSearchParams(window.location.search);
  const tracking: Record<string, string> = {};
  for (const key of (form.dataset.trackingKeys ?? '').split(' ')) {
    const value = Array.from((params.get(key) ?? '').split('\u0000').join(''))
      .slice(0, 200)
      .join('');
    if (key && value) tracking[key] = value;
  }
  return tracking;
}

function productPage(form: HTMLFormElement): void {
  const value = (id: string) => byId<HTMLInputElement>(id)?.value ?? '';
  const bump = byId<HTMLInputElement>('bump');
  const total = byId('total');
  const couponStatus = byId('coupon-status');
  const submit = byId<HTMLButtonElement>('submit');
  let appliedCoupon = '';

  const panel = byId('card-panel');
  const card = panel ? cardTab(form, panel, () => ({ bump: !!bump?.checked, coupon: appliedCoupon })) : null;
  let method: 'pix' | 'card' = 'pix';
  const tabs = [byId<HTMLButtonElement>('method-pix')!, byId<HTMLButtonElement>('method-card')!].filter(
    Boolean,
  );
  /** Selects a tab (the WAI-ARIA tabs pattern: one tab stop, arrows move between them). */
  function choose(next: 'pix' | 'card', focus: boolean): void {
    method = next;
    for (const tab of tabs) {
      const selected = tab.id === `method-${next}`;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
      if (selected && focus) tab.focus();
    }
    byId('pix-panel')!.hidden = next !== 'pix';
    panel!.hidden = next !== 'card';
    if (submit) submit.textContent = next === 'card' ? 'Pagar' : 'Gerar Pix';
    if (next === 'card') card!.open();
    else void quote();
  }
  for (const tab of tabs) {
    tab.addEventListener('click', () => choose(tab.id === 'method-card' ? 'card' : 'pix', false));
    tab.addEventListener('keydown', (event) => {
      if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) return;
      event.preventDefault();
      const toCard =
        event.key === 'End' ||
        ((event.key === 'ArrowRight' || event.key === 'ArrowLeft') && method === 'pix');
      choose(toCard ? 'card' : 'pix', true);
    });
  }
  card?.select.addEventListener('change', () => {
    fieldError('installments', null);
    card.showTotal();
  });

  async function quote(): Promise<void> {
    await pixQuote();
    // The card's total carries the installments' interest: the installments for the new total say it.
    if (method === 'card') await card!.refresh();
  }

  async function pixQuote(): Promise<void> {
    const { status, data } = await postJson(form.dataset.quoteUrl!, {
      bump: !!bump?.checked,
      ...(appliedCoupon && { coupon: appliedCoupon }),
    });
    if (status === 429 && appliedCoupon) {
      // Too many tries: say so where the buyer typed the code, and let them apply it again later.
      fieldError('coupon', (data as ErrorAnswer | null)?.error?.message ?? null);
      appliedCoupon = '';
      return;
    }
    if (status !== 200) return;
    const answer = data as { total: string; discount: string | null; coupon_error: string | null };
    if (total) total.textContent = answer.total;
    if (appliedCoupon) {
      fieldError('coupon', answer.coupon_error);
      if (couponStatus)
        couponStatus.textContent = answer.discount ? `Cupom aplicado: − ${answer.discount}` : '';
      if (answer.coupon_error) appliedCoupon = '';
    }
  }

  /** A declined card: why, in Portuguese, and Pix for the order just placed. */
  function declined(orderUrl: string, message: string | null): void {
    show(
      byId('decline'),
      `Pagamento recusado. ${message ?? ''} Tente outro cartão ou pague este pedido com Pix.`,
    );
    const pix = byId<HTMLButtonElement>('decline-pix');
    if (!pix) return;
    pix.hidden = false;
    pix.onclick = async () => {
      pix.disabled = true;
      const { status, data } = await postJson(`${orderUrl}/renew`, {});
      if (status === 200) {
        window.location.assign(orderUrl);
        return;
      }
      show(
        byId('form-error'),
        (data as ErrorAnswer | null)?.error?.message ?? 'Não foi possível gerar o Pix.',
      );
      pix.disabled = false;
    };
    pix.focus();
  }

  bump?.addEventListener('change', () => void quote());
  // A field's error goes as soon as the buyer changes it; the server checks it again on submit.
  for (const field of FIELDS) byId(field)?.addEventListener('input', () => fieldError(field, null));
  byId('apply-coupon')?.addEventListener('click', () => {
    appliedCoupon = value('coupon').trim();
    if (!appliedCoupon) {
      fieldError('coupon', 'Digite o código do cupom.');
      return;
    }
    void quote();
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const field of FIELDS) fieldError(field, null);
    show(byId('form-error'), null);
    show(byId('decline'), null);
    byId('decline-pix')?.setAttribute('hidden', '');
    if (submit) submit.disabled = true;
    try {
      const coupon = value('coupon').trim();
      let paying: { payment_method: 'card'; card: CardToken & { installments: number } } | null = null;
      if (method === 'card') {
        try {
          const token = await card!.token({ name: value('name'), document: value('document') });
          paying = {
            payment_method: 'card',
            card: { ...token, installments: Number(card!.select.value) || 1 },
          };
        } catch {
          show(byId('form-error'), 'Confira os dados do cartão e tente de novo.');
          return;
        }
      }
      const { status, data } = await postJson(form.dataset.orderUrl!, {
        name: value('name'),
        email: value('email'),
        document: value('document'),
        ...(value('whatsapp').trim() && { whatsapp: value('whatsapp') }),
        bump: !!bump?.checked,
        ...(coupon && { coupon }),
        tracking: urlTracking(form),
        ...paying,
      });
      if (status === 201) {
        const placed = data as { order_url: string; card_payment: CardAnswer | null };
        const payment = placed.card_payment;
        if (payment?.status === 'declined') {
          // The buyer's data stays; they may try another card or pay this same order by Pix.
          declined(placed.order_url, payment.decline_message);
          return;
        }
        window.location.assign(payment?.next_action_url ?? placed.order_url);
        return;
      }
      const answer = (data ?? {}) as ErrorAnswer;
      const fields = Object.entries(answer.fields ?? {});
      for (const [field, message] of fields) fieldError(field, message);
      if (fields.length > 0) byId(fields[0]![0])?.focus();
      else
        show(
          byId('form-error'),
          answer.error?.message ?? 'Não foi possível fazer o pedido. Tente novamente.',
        );
    } catch {
      show(byId('form-error'), 'Sem conexão. Verifique sua internet e tente novamente.');
    } finally {
      if (submit) submit.disabled = false;
    }
  });
}

/* ---------- order page ---------- */

/** Nothing follows these: no stream, polling or countdown is needed any more. */
const FINAL = ['paid', 'canceled'];

function orderPage(root: HTMLElement): void {
  const { statusUrl, eventsUrl, simulateUrl, renewUrl } = root.dataset;
  const countdown = byId('countdown');
  let current = root.dataset.status ?? 'pending';
  let timer: number | undefined;
  let polling: number | undefined;
  let events: EventSource | undefined;

  function apply(state: OrderStatus): void {
    if (state.status === current || state.status === 'gone') return;
    current = state.status;
    root.dataset.status = current;
    // One card per status (the page may lack some: no Pix yet, or no "new Pix" once canceled).
    for (const card of [
      'pending',
      'expired',
      'paid',
      'canceled',
      'requires_action',
      'processing',
      'declined',
    ]) {
      const element = byId(card);
      if (element) element.hidden = current !== card;
    }
    if (current === 'declined') {
      const message = byId('decline-message');
      if (message && state.card?.decline_message) message.textContent = state.card.decline_message;
      byId('declined-title')?.focus();
    } else if (current === 'paid') {
      const list = byId('access');
      if (list && state.access_links?.length) {
        list.replaceChildren(
          ...state.access_links.map((access) => {
            const link = document.createElement('a');
            link.className = 'button';
            link.href = access.url;
            link.textContent = `Acessar ${access.name}`;
            const item = document.createElement('li');
            item.append(link);
            return item;
          }),
        );
        list.hidden = false;
      }
      stop();
      byId('paid-title')?.focus();
    } else if (current === 'canceled') {
      stop();
      byId('canceled-title')?.focus();
    } else if (current === 'expired') {
      byId('expired-title')?.focus();
    }
  }

  function stop(): void {
    events?.close();
    window.clearInterval(polling);
    window.clearInterval(timer);
  }

  async function poll(): Promise<void> {
    try {
      const response = await fetch(statusUrl!, { cache: 'no-store' });
      if (response.ok) apply((await response.json()) as OrderStatus);
    } catch {
      /* offline for a moment: the next tick tries again */
    }
  }

  function startPolling(): void {
    if (polling === undefined) polling = window.setInterval(() => void poll(), 3000);
  }

  function listen(): void {
    events = new EventSource(eventsUrl!);
    events.addEventListener('status', (event) =>
      apply(JSON.parse((event as MessageEvent<string>).data) as OrderStatus),
    );
    // The service ends every stream after a while (its lifetime): a new one picks up from there.
    events.addEventListener('end', () => {
      events?.close();
      if (!FINAL.includes(current)) listen();
    });
    events.onerror = () => {
      // The stream ends by design once paid or canceled; otherwise (refused: too many open, or a
      // network failure) fall back to polling.
      events?.close();
      if (!FINAL.includes(current)) startPolling();
    };
  }

  if (!FINAL.includes(current)) {
    if ('EventSource' in window) listen();
    else startPolling();
  }

  const expiresAt = Date.parse(root.dataset.expiresAt ?? '');
  if (countdown && Number.isFinite(expiresAt) && current === 'pending') {
    const tick = () => {
      const left = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
      const minutes = Math.floor(left / 60);
      countdown.textContent = `${String(minutes).padStart(2, '0')}:${String(left % 60).padStart(2, '0')}`;
      if (left === 0) {
        window.clearInterval(timer);
        void poll();
      }
    };
    tick();
    timer = window.setInterval(tick, 1000);
  }

  const copy = byId<HTMLButtonElement>('copy');
  copy?.addEventListener('click', async () => {
    const text = byId<HTMLTextAreaElement>('copy-paste');
    if (!text) return;
    try {
      await navigator.clipboard.writeText(text.value);
    } catch {
      text.select();
      document.execCommand('copy');
    }
    copy.textContent = 'Copiado!';
    copy.dataset.copied = 'true';
    window.setTimeout(() => {
      copy.textContent = 'Copiar código';
      delete copy.dataset.copied;
    }, 2500);
  });

  byId('simulate')?.addEventListener('click', async (event) => {
    const button = event.currentTarget as HTMLButtonElement;
    button.disabled = true;
    show(byId('status-line'), 'Simulando pagamento…');
    const { status, data } = await postJson(simulateUrl!, {});
    if (status === 200) apply(data as OrderStatus);
    else
      show(byId('status-line'), (data as ErrorAnswer | null)?.error?.message ?? 'Não foi possível simular.');
    button.disabled = false;
  });

  // A new Pix for an expired one, or the first for an order whose card was declined: one path.
  for (const id of ['renew', 'pay-pix']) {
    byId(id)?.addEventListener('click', async (event) => {
      const button = event.currentTarget as HTMLButtonElement;
      button.disabled = true;
      const { status, data } = await postJson(renewUrl!, {});
      if (status === 200) {
        window.location.reload();
        return;
      }
      show(
        byId(`${id}-error`),
        (data as ErrorAnswer | null)?.error?.message ?? 'Não foi possível gerar um novo Pix.',
      );
      button.disabled = false;
    });
  }
}

/* ---------- 3-D Secure page ---------- */

/**
 * Posts the issuer's challenge into its frame (Mercado Pago), or the test buttons' result, and takes
 * the buyer on once the payment is decided (read every 3 s: the PSP tells the service, not this page).
 */
function threeDsPage(root: HTMLElement): void {
  const { statusUrl, simulateUrl } = root.dataset;
  byId<HTMLFormElement>('challenge-form')?.submit();
  const status = byId('three-ds-status');
  for (const button of root.querySelectorAll<HTMLButtonElement>('button[data-result]')) {
    button.addEventListener('click', async () => {
      for (const each of root.querySelectorAll<HTMLButtonElement>('button')) each.disabled = true;
      show(status, 'Enviando…');
      const { status: code, data } = await postJson(simulateUrl!, { result: button.dataset.result });
      if (code === 200) {
        window.location.assign((data as { redirect: string }).redirect);
        return;
      }
      show(status, (data as ErrorAnswer | null)?.error?.message ?? 'Não foi possível autenticar.');
      for (const each of root.querySelectorAll<HTMLButtonElement>('button')) each.disabled = false;
    });
  }
  const timer = window.setInterval(async () => {
    try {
      const response = await fetch(statusUrl!, { cache: 'no-store' });
      const answer = (await response.json()) as { status: string; redirect: string };
      if (response.ok && answer.status !== 'requires_action') {
        window.clearInterval(timer);
        window.location.assign(answer.redirect);
      }
    } catch {
      /* the next tick tries again */
    }
  }, 3000);
}

const form = byId<HTMLFormElement>('order-form');
if (form) productPage(form);
const order = byId('order');
if (order) orderPage(order);
const threeDs = byId('three-ds');
if (threeDs) threeDsPage(threeDs);
