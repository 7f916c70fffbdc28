import type { CheckoutSettings } from '../../../domain/checkouts/settings.js';
import { formatBrl } from '../../../platform/values/money.js';
import { Layout } from './layout.js';
import type { LayoutProps } from './layout.js';
import { TRACKING_KEYS } from '../../../domain/kernel/tracking.js';

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
  urls: { order: string; quote: string } | null;
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

        <p class="total">
          Total:{' '}
          <output id="total" aria-live="polite">
            {price}
          </output>
        </p>
        <p class="form-error" id="form-error" role="alert" hidden></p>
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
