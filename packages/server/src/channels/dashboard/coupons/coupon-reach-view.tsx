import type { CheckoutReach, CouponReach } from '../../../flows/read-coupon-reach.js';
import { Notice, PostForm, Section } from '../views/components.js';
import { formatCount } from '../views/format.js';

export const SHOW_FIELD_PATH = '/dashboard/cupons/mostrar-campo';
const CHECKOUTS_PATH = '/dashboard/checkouts';

const productsOf = (n: number) => (n === 1 ? '1 produto' : `${formatCount(n)} produtos`);
const named = (checkout: CheckoutReach) => `${checkout.name} (${productsOf(checkout.products)})`;

/**
 * Where buyers can type the coupon: the checkouts its products are sold through that show the coupon
 * field, and, for each one that hides it, a button that turns the field on. `coupon` is the coupon
 * whose page this is (the button comes back to it); none on the list, about every product.
 */
export function CouponReachPanel(props: { reach: CouponReach; canEdit: boolean; coupon: string | null }) {
  const { checkouts, recurringProducts } = props.reach;
  const shown = checkouts.filter((checkout) => checkout.showsField);
  const hidden = checkouts.filter((checkout) => !checkout.showsField);
  const whose = props.coupon ? 'deste cupom' : 'da loja';
  return (
    <Section title="Onde o comprador digita o cupom" id="campo-de-cupom">
      {checkouts.length === 0 ? (
        <p>Nenhum produto ativo {whose} pode receber cupom na página de compra.</p>
      ) : null}
      {shown.length > 0 ? <p>O campo de cupom aparece nos checkouts {shown.map(named).join(', ')}.</p> : null}
      {hidden.length > 0 ? (
        <Notice kind="error">
          {shown.length === 0
            ? 'Nenhum comprador vê o campo de cupom: '
            : 'Parte dos compradores não vê o campo de cupom: '}
          {hidden.length === 1 ? 'o checkout ' : 'os checkouts '}
          {hidden.map(named).join(', ')} {hidden.length === 1 ? 'não mostra' : 'não mostram'} o campo.
        </Notice>
      ) : null}
      {hidden.map((checkout) =>
        props.canEdit ? (
          <PostForm action={SHOW_FIELD_PATH} class="stack">
            <input type="hidden" name="checkout_id" value={checkout.id} />
            {props.coupon ? <input type="hidden" name="cupom" value={props.coupon} /> : null}
            <button type="submit" class="button">
              Mostrar o campo de cupom no checkout {checkout.name}
            </button>
          </PostForm>
        ) : (
          <p>
            <a href={`${CHECKOUTS_PATH}/${checkout.id}`}>Abrir o checkout {checkout.name}</a>
          </p>
        ),
      )}
      {recurringProducts > 0 ? (
        <p class="hint">
          {productsOf(recurringProducts)} com recorrência: a página de uma assinatura não mostra o campo de
          cupom.
        </p>
      ) : null}
    </Section>
  );
}
