import type { SaleCoupon, SaleItem } from '../../../domain/kernel/line-items.js';
import { formatBrl } from '../../../platform/values/money.js';
import { toCents } from '../../../platform/values/money.js';
import { Layout } from './layout.js';
import type { LayoutProps } from './layout.js';

/** A link the paid order page offers, named by its product. */
export interface AccessLink {
  name: string;
  url: string;
}

export type OrderPageStatus =
  'pending' | 'paid' | 'expired' | 'canceled' | 'requires_action' | 'processing' | 'declined';

/** An order paid by card: its installments, what the decline means, where 3-D Secure waits. */
export interface OrderPageCard {
  installments: number;
  installmentCents: number;
  totalCents: number;
  declineMessage: string | null;
  nextActionUrl: string | null;
}

export interface OrderPageProps extends Pick<LayoutProps, 'nonce' | 'assets' | 'testMode' | 'style'> {
  storeName: string;
  status: OrderPageStatus;
  items: SaleItem[];
  coupon: SaleCoupon | null;
  amountCents: number;
  pix: { copyPaste: string; qrBase64: string; expiresAt: string } | null;
  /** The card payment while the order has no Pix; null otherwise. */
  card: OrderPageCard | null;
  /** Only for a paid order (an unpaid token holder never sees them); http(s) links only. */
  accessLinks: AccessLink[];
  /** The product's page while it is on sale, offered when the store canceled the Pix; else null. */
  productUrl: string | null;
  /** A subscription's order: how its price is worded each period ("por mês"); null for a one-off order. */
  subscription: { perPeriod: string } | null;
  /** The order's own endpoints, relative to this page. */
  urls: { status: string; events: string; simulate: string; renew: string };
}

function Paid(props: { accessLinks: AccessLink[]; hidden: boolean; recurringPrice: string | null }) {
  return (
    <section class="card paid" id="paid" hidden={props.hidden} aria-labelledby="paid-title">
      <h1 id="paid-title" tabIndex={-1}>
        {props.recurringPrice ? 'Assinatura ativa!' : 'Pagamento confirmado!'}
      </h1>
      <p>
        {props.recurringPrice
          ? `Pagamento confirmado e Pix Automático autorizado: as próximas cobranças, de ${props.recurringPrice}, são feitas pelo seu banco. Seu acesso está liberado.`
          : 'Obrigado pela compra. Seu acesso está liberado.'}
      </p>
      {/* Filled by the page's script when the payment arrives while the buyer watches. */}
      <ul class="access" id="access" hidden={props.accessLinks.length === 0}>
        {props.accessLinks.map((link) => (
          <li>
            <a class="button" href={link.url}>
              Acessar {link.name}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The store canceled the charge (the API's cancel): no new Pix here; the buyer may order again. */
function Canceled(props: { productUrl: string | null; hidden: boolean }) {
  return (
    <section class="card canceled" id="canceled" hidden={props.hidden} aria-labelledby="canceled-title">
      <h1 id="canceled-title" tabIndex={-1}>
        Este Pix foi cancelado pela loja
      </h1>
      <p>
        Este pedido não pode mais ser pago, e nenhum valor foi cobrado. Se ainda quiser comprar, fale com a
        loja{props.productUrl ? ' ou faça um novo pedido' : ''}.
      </p>
      {props.productUrl ? (
        <p>
          <a class="button" id="new-order" href={props.productUrl}>
            Fazer um novo pedido
          </a>
        </p>
      ) : null}
    </section>
  );
}

/** "3x de R$ 33,33 sem juros", or "12x de R$ 99,70 (total R$ 1.196,40)" when the buyer pays interest. */
export function installmentLabel(
  option: { installments: number; installmentCents: number; totalCents: number },
  amountCents: number,
): string {
  const each = `${option.installments}x de ${formatBrl(option.installmentCents)}`;
  return option.totalCents > amountCents
    ? `${each} (total ${formatBrl(option.totalCents)})`
    : `${each} sem juros`;
}

/** The card's states while it has the order: 3-D Secure waiting, the issuer deciding, a decline. */
function CardStates(props: { status: OrderPageStatus; card: OrderPageCard }) {
  const { status, card } = props;
  return (
    <>
      <section
        class="card action"
        id="requires_action"
        hidden={status !== 'requires_action'}
        aria-labelledby="action-title"
      >
        <h1 id="action-title" tabIndex={-1}>
          Confirme o pagamento no seu banco
        </h1>
        <p>O banco emissor do cartão pede uma autenticação (3-D Secure) para aprovar a compra.</p>
        {card.nextActionUrl ? (
          <p>
            <a class="button" id="authenticate" href={card.nextActionUrl}>
              Autenticar pagamento
            </a>
          </p>
        ) : null}
      </section>
      <section
        class="card processing"
        id="processing"
        hidden={status !== 'processing'}
        aria-labelledby="processing-title"
      >
        <h1 id="processing-title" tabIndex={-1}>
          Pagamento em análise
        </h1>
        <p>
          O banco emissor está analisando o pagamento com cartão. Esta página se atualiza sozinha quando ele
          decidir.
        </p>
      </section>
      <section
        class="card declined"
        id="declined"
        hidden={status !== 'declined'}
        aria-labelledby="declined-title"
      >
        <h1 id="declined-title" tabIndex={-1}>
          Pagamento recusado
        </h1>
        <p id="decline-message">{card.declineMessage}</p>
        <p>Você pode pagar o mesmo pedido com Pix.</p>
        <button type="button" id="pay-pix" data-renew="true">
          Pagar com Pix
        </button>
        <p class="form-error" id="pay-pix-error" role="alert" hidden></p>
      </section>
    </>
  );
}

/**
 * The order's page: the Pix to pay (QR, copy, countdown), then the confirmation, a new Pix, or the
 * news that the store canceled it.
 */
export function OrderPage(props: OrderPageProps) {
  const { status, pix } = props;
  const recurringPrice = props.subscription
    ? `${formatBrl(props.amountCents)} ${props.subscription.perPeriod}`
    : null;
  return (
    <Layout
      title={`Pedido · ${props.storeName}`}
      nonce={props.nonce}
      assets={props.assets}
      testMode={props.testMode}
      page="order"
      style={props.style}
    >
      <div
        id="order"
        data-status={status}
        data-status-url={props.urls.status}
        data-events-url={props.urls.events}
        data-simulate-url={props.urls.simulate}
        data-renew-url={props.urls.renew}
        data-expires-at={pix?.expiresAt ?? ''}
      >
        <section class="card summary" aria-labelledby="summary-title">
          <h2 id="summary-title">Resumo do pedido</h2>
          <ul class="items">
            {props.items.map((item) => (
              <li>
                <span>{item.nome}</span> <span>{formatBrl(toCents(item.amount))}</span>
              </li>
            ))}
          </ul>
          {props.coupon ? (
            <p class="discount">
              Cupom {props.coupon.code}: − {formatBrl(toCents(props.coupon.discount))}
            </p>
          ) : null}
          <p class="total">
            Total: <strong>{recurringPrice ?? formatBrl(props.amountCents)}</strong>
          </p>
          {props.card ? (
            <p class="installments">Cartão de crédito: {installmentLabel(props.card, props.amountCents)}</p>
          ) : null}
        </section>

        {props.card ? <CardStates status={status} card={props.card} /> : null}

        {pix ? (
          <section class="card pay" id="pending" hidden={status !== 'pending'} aria-labelledby="pay-title">
            <h1 id="pay-title">{recurringPrice ? 'Pague e autorize com Pix' : 'Pague com Pix'}</h1>
            {recurringPrice ? (
              <p class="authorisation" id="authorisation">
                Ao pagar este Pix, você autoriza no app do seu banco o Pix Automático de {props.storeName}:
                cobranças de {recurringPrice}, até você cancelar pelo próprio banco.
              </p>
            ) : null}
            <p class="countdown" role="timer" aria-live="off">
              Expira em <span id="countdown">--:--</span>
            </p>
            <img
              class="qr"
              src={`data:image/png;base64,${pix.qrBase64}`}
              alt="QR code do Pix"
              width="240"
              height="240"
            />
            <label for="copy-paste">Pix copia e cola</label>
            <textarea id="copy-paste" readOnly rows={4}>
              {pix.copyPaste}
            </textarea>
            <button type="button" id="copy" aria-live="polite">
              Copiar código
            </button>
            <ol class="steps">
              <li>Abra o app do seu banco e escolha pagar com Pix.</li>
              <li>Escaneie o QR code ou cole o código copiado.</li>
              <li>
                {recurringPrice
                  ? 'Confirme o pagamento e a autorização: esta página se atualiza sozinha.'
                  : 'Confirme o pagamento: esta página se atualiza sozinha.'}
              </li>
            </ol>
            {props.testMode ? (
              <button type="button" id="simulate" class="secondary">
                Simular pagamento
              </button>
            ) : null}
            <p class="status-line" id="status-line" role="status"></p>
          </section>
        ) : null}

        {/* A Pix the store canceled is never renewed from here: no "new Pix" button at all. */}
        {status === 'canceled' || (props.card && !pix) ? null : (
          <section
            class="card expired"
            id="expired"
            hidden={status !== 'expired'}
            aria-labelledby="expired-title"
          >
            <h1 id="expired-title" tabIndex={-1}>
              Este Pix expirou
            </h1>
            {recurringPrice ? (
              // Its first charge authorised the subscription too: a new one is a new subscription.
              <>
                <p>O prazo para pagar terminou, e nada foi autorizado nem cobrado.</p>
                {props.productUrl ? (
                  <p>
                    <a class="button" id="subscribe-again" href={props.productUrl}>
                      Assinar novamente
                    </a>
                  </p>
                ) : null}
              </>
            ) : (
              <>
                <p>O prazo para pagar terminou. Gere um novo Pix para o mesmo pedido.</p>
                <button type="button" id="renew">
                  Gerar novo Pix
                </button>
                <p class="form-error" id="renew-error" role="alert" hidden></p>
              </>
            )}
          </section>
        )}

        <Canceled productUrl={props.productUrl} hidden={status !== 'canceled'} />

        <Paid accessLinks={props.accessLinks} hidden={status !== 'paid'} recurringPrice={recurringPrice} />
      </div>
    </Layout>
  );
}
