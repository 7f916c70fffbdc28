import { formatBrl } from '../../../platform/values/money.js';
import { Layout } from './layout.js';
import type { LayoutProps } from './layout.js';

export interface ThreeDSecurePageProps extends Pick<LayoutProps, 'nonce' | 'assets' | 'testMode'> {
  storeName: string;
  totalCents: number;
  /** Test mode's stand-in for the bank: two buttons posting the result here. */
  simulate: { url: string } | null;
  /** Mercado Pago's challenge: posted (`creq`) into the frame by the page's script. */
  challenge: { url: string; creq: string } | null;
  /** Read until the payment leaves 3-D Secure; the answer says where the buyer goes next. */
  statusUrl: string;
}

/**
 * The 3-D Secure page a card payment's `next_action.url` names: the issuer's challenge in a frame
 * (Mercado Pago), or, for a simulated payment, "Autenticar" and "Falhar". Either way the page's script
 * takes the buyer on (their order's page) once the payment is decided.
 */
export function ThreeDSecurePage(props: ThreeDSecurePageProps) {
  return (
    <Layout
      title={`Autenticação do cartão · ${props.storeName}`}
      nonce={props.nonce}
      assets={props.assets}
      testMode={props.testMode}
      page="3ds"
    >
      <section
        class="card three-ds"
        id="three-ds"
        aria-labelledby="three-ds-title"
        data-status-url={props.statusUrl}
        data-simulate-url={props.simulate?.url}
      >
        <h1 id="three-ds-title">Autenticação do cartão</h1>
        <p>
          {props.storeName}: pagamento de {formatBrl(props.totalCents)}. O banco emissor pede uma confirmação
          (3-D Secure) para aprovar a compra.
        </p>
        {props.simulate ? (
          <>
            <p>Modo de teste: escolha o que o banco responderia.</p>
            <div class="actions">
              <button type="button" id="authenticate-3ds" data-result="authenticated">
                Autenticar
              </button>
              <button type="button" id="fail-3ds" class="secondary" data-result="failed">
                Falhar
              </button>
            </div>
          </>
        ) : null}
        {props.challenge ? (
          <>
            <form
              id="challenge-form"
              method="post"
              action={props.challenge.url}
              target="challenge-frame"
              hidden
            >
              <input type="hidden" name="creq" value={props.challenge.creq} />
            </form>
            <iframe
              name="challenge-frame"
              id="challenge-frame"
              class="challenge-frame"
              title="Autenticação do banco emissor"
            ></iframe>
          </>
        ) : null}
        <p class="status-line" id="three-ds-status" role="status"></p>
      </section>
    </Layout>
  );
}

/** A 3-D Secure link followed after the payment was decided, for a payment no page order has. */
export function cardOutcomeText(
  status: string,
  declineMessage: string | null,
): { title: string; text: string } {
  if (status === 'approved')
    return { title: 'Pagamento aprovado', text: 'O pagamento com cartão foi aprovado.' };
  if (status === 'declined')
    return { title: 'Pagamento recusado', text: declineMessage ?? 'O banco emissor recusou a compra.' };
  return {
    title: 'Pagamento em análise',
    text: 'O banco emissor ainda está analisando o pagamento. Volte a esta página mais tarde.',
  };
}
