import { useContext } from 'preact/hooks';
import { localDate } from '../../../platform/values/local-date.js';
import { formatBrl } from '../../../platform/values/money.js';
import type { CouponsTable } from '../../../domain/coupons/coupon-object.js';
import type { RefusedForm } from '../shell/form-values.js';
import { ArchiveButton, Field, Notice, PostForm, RefusedNotice, TextAreaField } from '../views/components.js';
import { formatCount, formatDate } from '../views/format.js';
import { ListTable, NewItemLink, OlderPage } from '../views/listing.js';
import { PageContextValue } from '../views/page-context.js';
import type { CouponReach } from '../../../flows/read-coupon-reach.js';
import type { CouponValues } from './coupon-form.js';
import { CouponReachPanel } from './coupon-reach-view.js';

export const PATH = '/dashboard/cupons';

export type CouponFormState = RefusedForm<CouponValues>;

const discountOf = (row: CouponsTable) =>
  row.percent_off !== null ? `${row.percent_off}%` : formatBrl(row.amount_off_cents ?? 0);
const usesOf = (row: CouponsTable) =>
  row.max_redemptions === null
    ? `${formatCount(row.times_redeemed)} (sem limite)`
    : `${formatCount(row.times_redeemed)} de ${formatCount(row.max_redemptions)}`;
/** The last day a coupon is valid, in the store's time zone. */
function Validity(props: { row: CouponsTable }) {
  const { timeZone } = useContext(PageContextValue);
  const { expires_at } = props.row;
  return <>{expires_at === null ? 'Sem validade' : `Até ${formatDate(localDate(expires_at, timeZone))}`}</>;
}

export function CouponsList(props: {
  rows: CouponsTable[];
  reach: CouponReach;
  next: string | null;
  canEdit: boolean;
  notice: string | null;
}) {
  return (
    <>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      <NewItemLink action={PATH} label="Novo cupom" show={props.canEdit} />
      {props.rows.length === 0 ? (
        <p>Nenhum cupom ainda.</p>
      ) : (
        <ListTable label="Cupons" columns={['Código', 'Desconto', 'Usos', 'Validade', 'Situação']}>
          {props.rows.map((row) => (
            <tr>
              <td data-label="Código">
                <a href={`${PATH}/${row.id}`}>{row.code}</a>
              </td>
              <td data-label="Desconto">{discountOf(row)}</td>
              <td data-label="Usos">{usesOf(row)}</td>
              <td data-label="Validade">
                <Validity row={row} />
              </td>
              <td data-label="Situação">{row.active === 1 ? 'Ativo' : 'Arquivado'}</td>
            </tr>
          ))}
        </ListTable>
      )}
      <OlderPage action={PATH} status={undefined} next={props.next} />
      <CouponReachPanel reach={props.reach} canEdit={props.canEdit} coupon={null} />
    </>
  );
}

/** The fields both forms share: the limit, the validity and the products. */
function EditableFields(props: { state: CouponFormState }) {
  const { values, errors } = props.state;
  return (
    <>
      <Field
        label="Limite de usos"
        name="max_redemptions"
        inputMode="numeric"
        value={values.max_redemptions ?? ''}
        error={errors.max_redemptions}
        hint="Vendas aprovadas que podem usar o cupom. Vazio: sem limite."
      />
      <Field
        label="Validade"
        name="expires_on"
        type="date"
        value={values.expires_on ?? ''}
        error={errors.expires_at}
        hint="Último dia em que o cupom vale, no fuso horário da loja. Vazio: sem validade."
      />
      <TextAreaField
        label="Produtos"
        name="product_codes"
        rows={3}
        value={values.product_codes ?? ''}
        error={errors.product_ids}
        hint="Códigos dos produtos em que o cupom vale (como PRD-7K3M9QXA), separados por espaço. Vazio: todos."
      />
    </>
  );
}

export function NewCouponForm(props: { state: CouponFormState }) {
  const { values, errors } = props.state;
  return (
    <PostForm action={PATH} class="stack">
      <RefusedNotice errors={props.state.errors} />
      <Field
        label="Código"
        name="code"
        value={values.code ?? ''}
        error={errors.code}
        required
        maxLength={40}
        autocapitalize="characters"
        hint="De 3 a 40 letras, números, _ ou -. O comprador digita em maiúsculas ou minúsculas."
      />
      <fieldset class="choices stack">
        <legend>Desconto (preencha um dos dois)</legend>
        <Field
          label="Desconto (%)"
          name="percent_off"
          inputMode="numeric"
          value={values.percent_off ?? ''}
          error={errors.percent_off}
          hint="De 1 a 100, sobre o preço do produto principal."
        />
        <Field
          label="Desconto (R$)"
          name="amount_off"
          inputMode="decimal"
          value={values.amount_off ?? ''}
          error={errors.amount_off}
          hint="Em reais, como 10,00. O preço nunca fica abaixo de zero."
        />
      </fieldset>
      <EditableFields state={props.state} />
      <button type="submit" class="button">
        Salvar
      </button>
    </PostForm>
  );
}

export function CouponPage(props: {
  coupon: CouponsTable;
  reach: CouponReach;
  productNames: string[];
  canEdit: boolean;
  notice: string | null;
  state: CouponFormState;
}) {
  const { coupon } = props;
  const active = coupon.active === 1;
  const base = `${PATH}/${coupon.id}`;
  return (
    <>
      <p>
        <a href={PATH}>Voltar para Cupons</a>
      </p>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      {active ? <CouponReachPanel reach={props.reach} canEdit={props.canEdit} coupon={coupon.id} /> : null}
      <dl class="facts">
        <dt>Desconto</dt>
        <dd>{discountOf(coupon)}</dd>
        <dt>Usos</dt>
        <dd>{usesOf(coupon)}</dd>
        <dt>Validade</dt>
        <dd>
          <Validity row={coupon} />
        </dd>
        <dt>Produtos</dt>
        <dd>{props.productNames.length === 0 ? 'Todos' : props.productNames.join(', ')}</dd>
        <dt>Situação</dt>
        <dd>{active ? 'Ativo' : 'Arquivado: recusado na página de compra'}</dd>
      </dl>
      {props.canEdit ? (
        <>
          <p class="hint">O código e o desconto não mudam depois de criado o cupom.</p>
          <PostForm action={base} class="stack">
            <RefusedNotice errors={props.state.errors} />
            <EditableFields state={props.state} />
            <button type="submit" class="button">
              Salvar
            </button>
          </PostForm>
          <ArchiveButton base={base} active={active} />
        </>
      ) : null}
    </>
  );
}
