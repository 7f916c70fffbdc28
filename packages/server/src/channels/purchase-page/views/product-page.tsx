import type { CheckoutSettings } from '../../../domain/checkouts/settings.js';
import { formatBrl } from '../../../platform/values/money.js';
import { Layout } from './layout.js';
import type { LayoutProps } from './layout.js';
import { TRACKING_KEYS } from '../../../domain/kernel/tracking.js';
import { CARD_DECLINE_CODES, DECLINE_MESSAGES_PT } from '../../../domain/kernel/card-outcome.js';

export interface ProductPageProps extends Pick<LayoutProps, 'nonce' | 'assets' | 'testMode' | 'style'> {
  storeName: string;
  settings: CheckoutSettings;
  /** Image URLs already reduced to http(s) or null. */
  images: { logo: string | null; banner: string | null; background: string | null; product: string | null };
  product: { name: string; description: string | null; guarantee: string | null; priceCents: number };
  bump: {
    name: string;
    title: string;
    description: string | null;
    priceCents: number;
    image: string | null;
  } | null;
  /** A recurring product: how its price is worded ("por mês"); no bump or coupon is offered then. */
  recurring: { perPeriod: string } | null;
  /** Where the form posts its order and asks for totals; null in the dashboard's preview (no script, no order). */
  urls: { order: string; quote: string; installments: string } | null;
  /** The store takes cards in the page's mode: its provider, public key and script; else null (Pix only). */
  card: ProductPageCard | null;
}

export interface ProductPageCard {
  provider: 'mercadopago' | 'pagarme' | 'simulated';
  publicKey: string | null;
  /** The PSP's tokenizing script, loaded by the page's own script when the card tab opens. */
  scriptSrc: string | null;
}

/** Test mode's cards: each outcome the simulated provider knows, by its test token. */
const TEST_CARDS: [string, string][] = [
  ['tok_test_approved', 'Aprovado'],
  ...CARD_DECLINE_CODES.map((code): [string, string] => [
    `tok_test_declined_${code}`,
    `Recusado: ${DECLINE_MESSAGES_PT[code]}`,
  ]),
  ['tok_test_3ds', 'Pede autenticação (3-D Secure)'],
  ['tok_test_processing', 'Em análise'],
];

/** A field the PSP's own iframe fills (Mercado Pago's Secure Fields): its name, and the box it mounts in. */
function SecureField(props: { id: string; label: string }) {
  return (
    <div class="field">
      <span class="label" id={`${props.id}-label`}>
        {props.label}
      </span>
      <div class="secure-field" id={props.id} aria-labelledby={`${props.id}-label`}></div>
    </div>
  );
}

/** Pagar.me's fields: in this page, read by its script (no `name`, so no form ever sends them here). */
function PagarmeField(props: {
  id: string;
  label: string;
  element: string;
  autocomplete: string;
  numeric?: boolean;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="text"
        autocomplete={props.autocomplete}
        inputMode={props.numeric ? 'numeric' : undefined}
        data-pagarmecheckout-element={props.element}
      />
    </div>
  );
}

/** The card tab: the provider's fields (or the test cards) and the installments. */
function CardPanel(props: { card: ProductPageCard }) {
  const { card } = props;
  return (
    <div
      class="card-panel"
      id="card-panel"
      role="tabpanel"
      aria-labelledby="method-card"
      hidden
      data-provider={card.provider}
      data-public-key={card.publicKey ?? undefined}
      data-script={card.scriptSrc ?? undefined}
    >
      {card.provider === 'simulated' ? (
        <div class="field">
          <label for="test-card">Cartão de teste</label>
          <p class="hint" id="test-card-hint">
            Modo de teste: escolha o resultado; nenhum cartão é pedido nem cobrado.
          </p>
          <select id="test-card" aria-describedby="test-card-hint">
            {TEST_CARDS.map(([token, label]) => (
              <option value={token}>{label}</option>
            ))}
          </select>
        </div>
      ) : (
        <>
          <div class="field">
            <label for="card-holder">Nome impresso no cartão</label>
            <input
              id="card-holder"
              type="text"
              autocomplete="cc-name"
              data-pagarmecheckout-element={card.provider === 'pagarme' ? 'holder_name' : undefined}
            />
          </div>
          {card.provider === 'mercadopago' ? (
            <>
              <SecureField id="card-number" label="Número do cartão" />
              <SecureField id="card-expiry" label="Validade (MM/AA)" />
              <SecureField id="card-cvv" label="Código de segurança (CVV)" />
            </>
          ) : (
            <>
              <PagarmeField
                id="card-number"
                label="Número do cartão"
                element="number"
                autocomplete="cc-number"
                numeric
              />
              <PagarmeField
                id="card-expiry"
                label="Validade (MM/AA)"
                element="exp_date"
                autocomplete="cc-exp"
              />
              <PagarmeField
                id="card-cvv"
                label="Código de segurança (CVV)"
                element="cvv"
                autocomplete="cc-csc"
                numeric
              />
              <input type="hidden" id="card-brand" data-pagarmecheckout-element="brand" />
            </>
          )}
        </>
      )}
      <div class="field">
        <label for="installments">Parcelas</label>
        <select id="installments" aria-describedby="installments-error"></select>
        <p class="field-error" id="installments-error" role="alert" hidden></p>
      </div>
    </div>
  );
}

/** Pix or card: a tab list the arrow keys move through (the WAI-ARIA tabs pattern). */
function MethodTabs() {
  return (
    <div class="methods" role="tablist" aria-label="Forma de pagamento">
      <button type="button" role="tab" id="method-pix" aria-selected="true" aria-controls="pix-panel">
        Pix
      </button>
      <button
        type="button"
        role="tab"
        id="method-card"
        aria-selected="false"
        aria-controls="card-panel"
        tabIndex={-1}
      >
        Cartão de crédito
      </button>
    </div>
  );
}

function Field(props: {
  id: string;
  label: string;
  type: string;
  autocomplete: string;
  required?: boolean;
  inputmode?: 'numeric' | 'tel' | 'email';
  hint?: string;
}) {
  const described = [props.hint ? `${props.id}-hint` : null, `${props.id}-error`].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={props.id}>
        {props.label}
        {props.required ? null : <span class="optional"> (opcional)</span>}
      </label>
      {props.hint ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <input
        id={props.id}
        name={props.id}
        type={props.type}
        autocomplete={props.autocomplete}
        inputMode={props.inputmode}
        required={props.required}
        aria-required={props.required ? 'true' : undefined}
        aria-describedby={described}
      />
      <p class="field-error" id={`${props.id}-error`} role="alert" hidden></p>
    </div>
  );
}

/** The page a buyer lands on: the checkout's look, the product, the bump offer and the buyer form. */
export function ProductPage(props: ProductPageProps) {
  const { settings, images, product, recurring } = props;
  const bump = recurring ? null : props.bump;
  const price = formatBrl(product.priceCents) + (recurring ? ` ${recurring.perPeriod}` : '');
  // A subscription is Pix Automático: no card tab.
  const card = recurring ? null : props.card;
  return (
    <Layout
      title={`${product.name} · ${props.storeName}`}
      nonce={props.nonce}
      assets={props.assets}
      testMode={props.testMode}
      page="product"
      style={props.style}
      backgroundImage={images.background}
      preview={props.urls === null}
    >
      {images.logo || images.banner ? (
        <header class="brand">
          {images.logo ? <img class="logo" src={images.logo} alt={`Logo de ${props.storeName}`} /> : null}
          {images.banner ? <img class="banner" src={images.banner} alt="" /> : null}
        </header>
      ) : null}
      <section class="card intro">
        <h1>{settings.checkout_titulo}</h1>
        {settings.checkout_subtitulo ? <p class="subtitle">{settings.checkout_subtitulo}</p> : null}
        {settings.checkout_descricao ? <p class="description">{settings.checkout_descricao}</p> : null}
      </section>

      <section
        class={images.product ? 'card product with-image' : 'card product'}
        aria-labelledby="product-name"
      >
        {images.product ? <img class="product-image" src={images.product} alt={product.name} /> : null}
        <div>
          <h2 id="product-name">{product.name}</h2>
          {product.description ? <p class="description">{product.description}</p> : null}
          {product.guarantee ? <p class="product-guarantee">{product.guarantee}</p> : null}
          <p class="price">{price}</p>
          {recurring ? (
            <p class="subscription-note" id="subscription-note">
              Assinatura com Pix Automático: você paga a primeira cobrança agora e, no mesmo Pix, autoriza no
              app do seu banco as próximas, de {price}, até cancelar quando quiser pelo próprio banco.
            </p>
          ) : null}
        </div>
      </section>

      <form
        class="card buyer"
        id="order-form"
        novalidate
        data-order-url={props.urls?.order}
        data-quote-url={props.urls?.quote}
        data-tracking-keys={TRACKING_KEYS.join(' ')}
        data-installments-url={card ? props.urls?.installments : undefined}
        data-pagarmecheckout-form={card?.provider === 'pagarme' ? '' : undefined}
      >
        <h2>Seus dados</h2>
        <Field id="name" label="Nome completo" type="text" autocomplete="name" required />
        <Field
          id="email"
          label="E-mail"
          type="email"
          autocomplete="email"
          inputmode="email"
          required
          hint="Enviaremos o acesso para este e-mail."
        />
        <Field
          id="document"
          label="CPF ou CNPJ"
          type="text"
          autocomplete="off"
          inputmode="numeric"
          required
        />
        <Field id="whatsapp" label="WhatsApp" type="tel" autocomplete="tel" inputmode="tel" />

        {settings.checkout_cupom_enabled && !recurring ? (
          <div class="field coupon">
            <label for="coupon">Cupom de desconto</label>
            <div class="inline">
              <input
                id="coupon"
                name="coupon"
                type="text"
                autocomplete="off"
                aria-describedby="coupon-error coupon-status"
              />
              <button type="button" id="apply-coupon" class="secondary">
                Aplicar
              </button>
            </div>
            <p class="field-error" id="coupon-error" role="alert" hidden></p>
            <p class="coupon-status" id="coupon-status" role="status"></p>
          </div>
        ) : null}

        {bump ? (
          <div class="bump">
            <input id="bump" name="bump" type="checkbox" aria-describedby="bump-description" />
            <label for="bump">
              <strong>{bump.title}</strong> <span class="bump-price">+ {formatBrl(bump.priceCents)}</span>
            </label>
            <div id="bump-description" class="bump-description">
              {bump.image ? <img src={bump.image} alt={bump.name} /> : null}
              <p>{bump.description ?? bump.name}</p>
            </div>
          </div>
        ) : null}

        {card ? (
          <>
            <h2 class="methods-title">Pagamento</h2>
            <MethodTabs />
            <div id="pix-panel" role="tabpanel" aria-labelledby="method-pix" class="pix-panel">
              <p>O QR code e o código copia e cola aparecem na próxima página.</p>
            </div>
            <CardPanel card={card} />
          </>
        ) : null}

        <p class="total">
          Total:{' '}
          <output id="total" aria-live="polite">
            {price}
          </output>
        </p>
        <p class="form-error" id="form-error" role="alert" hidden></p>
        {card ? (
          <>
            <p class="form-error" id="decline" role="alert" hidden></p>
            <button type="button" id="decline-pix" class="secondary" hidden>
              Pagar este pedido com Pix
            </button>
          </>
        ) : null}
        <button type="submit" id="submit">
          {recurring ? 'Assinar com Pix' : 'Gerar Pix'}
        </button>
        {settings.checkout_selos_enabled ? (
          <ul class="seals" aria-label="Selos">
            <li>Pagamento seguro</li>
            <li>Pix</li>
            <li>Dados protegidos</li>
          </ul>
        ) : null}
        <p class="guarantee">{settings.checkout_garantia}</p>
      </form>
    </Layout>
  );
}
