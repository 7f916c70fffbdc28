/*
 * The purchase pages' only script (no framework): the product page's form, coupon and bump totals,
 * and the order page's copy button, countdown and live status (Server-Sent Events, polling when
 * they fail). Every message shown comes from the server; this file only places it.
 */

interface OrderStatus {
  status: 'pending' | 'paid' | 'expired' | 'canceled' | 'gone';
  expires_at?: string | null;
  access_links?: { name: string; url: string }[];
}

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

  async function quote(): Promise<void> {
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
    if (submit) submit.disabled = true;
    try {
      const coupon = value('coupon').trim();
      const { status, data } = await postJson(form.dataset.orderUrl!, {
        name: value('name'),
        email: value('email'),
        document: value('document'),
        ...(value('whatsapp').trim() && { whatsapp: value('whatsapp') }),
        bump: !!bump?.checked,
        ...(coupon && { coupon }),
        tracking: urlTracking(form),
      });
      if (status === 201) {
        window.location.assign((data as { order_url: string }).order_url);
        return;
      }
      const answer = (data ?? {}) as ErrorAnswer;
      const fields = Object.entries(answer.fields ?? {});
      for (const [field, message] of fields) fieldError(field, message);
      if (fields.length > 0) byId(fields[0]![0])?.focus();
      else
        show(byId('form-error'), answer.error?.message ?? 'Não foi possível gerar o Pix. Tente novamente.');
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
    for (const card of ['pending', 'expired', 'paid', 'canceled']) {
      const element = byId(card);
      if (element) element.hidden = current !== card;
    }
    if (current === 'paid') {
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

  byId('renew')?.addEventListener('click', async (event) => {
    const button = event.currentTarget as HTMLButtonElement;
    button.disabled = true;
    const { status, data } = await postJson(renewUrl!, {});
    if (status === 200) {
      window.location.reload();
      return;
    }
    show(
      byId('renew-error'),
      (data as ErrorAnswer | null)?.error?.message ?? 'Não foi possível gerar um novo Pix.',
    );
    button.disabled = false;
  });
}

const form = byId<HTMLFormElement>('order-form');
if (form) productPage(form);
const order = byId('order');
if (order) orderPage(order);
