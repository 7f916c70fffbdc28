import { formatBrl } from '../../../platform/values/money.js';
import type { CheckoutsTable } from '../../../domain/checkouts/checkout-object.js';
import type { ProductsTable } from '../../../domain/catalogue/product-object.js';
import type { Recorrencia, RetryPolicy } from '../../../domain/kernel/recurrence.js';
import { RECORRENCIAS } from '../../../domain/kernel/recurrence.js';
import type { RefusedForm } from '../shell/form-values.js';
import {
  ArchiveButton,
  Field,
  Notice,
  PostForm,
  RefusedNotice,
  SelectField,
  TextAreaField,
  DateTime,
} from '../views/components.js';
import { ListTable, NewItemLink, OlderPage } from '../views/listing.js';
import type { ProductValues } from './product-form.js';

export const PATH = '/dashboard/produtos';

const RECURRENCE_LABELS: Record<Recorrencia, string> = {
  semanal: 'Semanal',
  mensal: 'Mensal',
  trimestral: 'Trimestral',
  semestral: 'Semestral',
  anual: 'Anual',
};
const RETRY_LABELS: Record<RetryPolicy, string> = {
  '3_in_7_days': 'Até 3 novas tentativas em 7 dias',
  none: 'Nenhuma',
};

/** The two lists: active products (the default) and archived ones. */
export const LIST_FILTERS = { arquivados: 'Arquivados' } as const;
export type ListFilter = keyof typeof LIST_FILTERS;

function ListChoice(props: { archived: boolean }) {
  const link = (href: string, label: string, current: boolean) => (
    <a href={href} {...(current ? { 'aria-current': 'page' } : {})}>
      {label}
    </a>
  );
  return (
    <nav class="tabs" aria-label="Lista de produtos">
      {link(PATH, 'Ativos', !props.archived)}
      {link(`${PATH}?status=arquivados`, 'Arquivados', props.archived)}
    </nav>
  );
}

export function ProductsList(props: {
  rows: ProductsTable[];
  next: string | null;
  archived: boolean;
  canEdit: boolean;
  notice: string | null;
}) {
  const { rows, archived } = props;
  return (
    <>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      <NewItemLink action={PATH} label="Novo produto" show={props.canEdit} />
      <ListChoice archived={archived} />
      {rows.length === 0 ? (
        <p>{archived ? 'Nenhum produto arquivado.' : 'Nenhum produto ativo.'}</p>
      ) : (
        <ListTable
          label={archived ? 'Produtos arquivados' : 'Produtos ativos'}
          columns={['Nome', 'Código', 'Preço', 'Recorrência', 'Criado']}
        >
          {rows.map((row) => (
            <tr>
              <td data-label="Nome">
                <a href={`${PATH}/${row.id}`}>{row.nome}</a>
              </td>
              <td data-label="Código">
                <code>{row.codigo}</code>
              </td>
              <td data-label="Preço">{formatBrl(row.preco_cents)}</td>
              <td data-label="Recorrência">
                {row.recorrencia ? RECURRENCE_LABELS[row.recorrencia] : 'Venda única'}
              </td>
              <td data-label="Criado">
                <DateTime iso={row.created_at} />
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      <OlderPage action={PATH} status={archived ? 'arquivados' : undefined} next={props.next} />
    </>
  );
}

export type ProductFormState = RefusedForm<ProductValues>;

/** Every field of a product, as one form that works without JavaScript. */
export function ProductFormView(props: {
  action: string;
  state: ProductFormState;
  checkouts: CheckoutsTable[];
}) {
  const { values, errors } = props.state;
  const text = (name: keyof ProductValues) => values[name] ?? '';
  const options = (labels: Record<string, string>) =>
    Object.entries(labels).map(([value, label]) => ({ value, label }));
  return (
    <PostForm action={props.action} class="stack">
      <RefusedNotice errors={errors} />
      <Field label="Nome" name="nome" value={text('nome')} error={errors.nome} required maxLength={120} />
      <Field
        label="Preço"
        name="preco"
        value={text('preco')}
        error={errors.preco}
        inputMode="decimal"
        hint="Em reais, como 19,90."
        required
      />
      <Field
        label="Endereço da página"
        name="slug"
        value={text('slug')}
        error={errors.slug}
        maxLength={60}
        hint="O fim do link da página de compra (curso-de-violao). Vazio: feito a partir do nome."
      />
      <TextAreaField label="Descrição" name="descricao" value={text('descricao')} error={errors.descricao} />
      <Field
        label="Imagem"
        name="imagem"
        type="url"
        value={text('imagem')}
        error={errors.imagem}
        hint="Endereço http(s) da imagem do produto."
      />
      <Field
        label="Link de acesso"
        name="link_acesso"
        type="url"
        value={text('link_acesso')}
        error={errors.link_acesso}
        hint="Entregue ao comprador depois do pagamento."
      />
      <Field
        label="Garantia"
        name="garantia"
        value={text('garantia')}
        error={errors.garantia}
        hint="Como 7 dias de garantia incondicional."
      />
      <SelectField
        label="Checkout"
        name="checkout_id"
        value={text('checkout_id')}
        error={errors.checkout_id}
        options={[
          { value: '', label: 'Padrão da loja' },
          ...props.checkouts.map((checkout) => ({ value: checkout.id, label: checkout.name })),
        ]}
      />
      <fieldset class="choices stack">
        <legend>Order bump</legend>
        <label class="choice" for="f-order_bump_enabled">
          <input
            id="f-order_bump_enabled"
            type="checkbox"
            name="order_bump_enabled"
            checked={values.order_bump_enabled === 'on'}
          />{' '}
          Oferecer order bump
        </label>
        <Field
          label="Produto do order bump"
          name="order_bump_codigo"
          value={text('order_bump_codigo')}
          error={errors.order_bump_product_id}
          hint="O código de outro produto desta loja, como PRD-7K3M9QXA."
          maxLength={64}
        />
        <Field
          label="Título do order bump"
          name="order_bump_title"
          value={text('order_bump_title')}
          error={errors.order_bump_title}
          maxLength={120}
        />
        <TextAreaField
          label="Descrição do order bump"
          name="order_bump_description"
          rows={3}
          value={text('order_bump_description')}
          error={errors.order_bump_description}
        />
      </fieldset>
      <fieldset class="choices stack">
        <legend>E-mail de entrega</legend>
        <Field
          label="Assunto do e-mail"
          name="delivery_email_subject"
          value={text('delivery_email_subject')}
          error={errors.delivery_email_subject}
          maxLength={160}
        />
        <TextAreaField
          label="Texto do e-mail"
          name="delivery_email_body"
          value={text('delivery_email_body')}
          error={errors.delivery_email_body}
          hint="Vazio usa o texto padrão. Pode usar {{nome}}, {{produto}}, {{link_acesso}}, {{valor}} e {{loja}}."
        />
      </fieldset>
      <SelectField
        label="Recorrência"
        name="recorrencia"
        value={text('recorrencia')}
        error={errors.recorrencia}
        hint="Com recorrência, o produto é vendido como assinatura por Pix Automático."
        options={[
          { value: '', label: 'Venda única' },
          ...RECORRENCIAS.map((value) => ({ value, label: RECURRENCE_LABELS[value] })),
        ]}
      />
      <SelectField
        label="Novas tentativas"
        name="retry_policy"
        value={text('retry_policy') || '3_in_7_days'}
        error={errors.retry_policy}
        hint="Quando a cobrança de um ciclo da assinatura falha."
        options={options(RETRY_LABELS)}
      />
      <button type="submit" class="button">
        Salvar
      </button>
    </PostForm>
  );
}

/** A product as a viewer reads it: every field, no form. */
function ProductFacts(props: { product: ProductsTable; bumpCode: string | null; checkout: string }) {
  const { product } = props;
  const facts: [string, string][] = [
    ['Preço', formatBrl(product.preco_cents)],
    ['Endereço da página', product.slug],
    ['Descrição', product.descricao ?? '—'],
    ['Imagem', product.imagem ?? '—'],
    ['Link de acesso', product.link_acesso ?? '—'],
    ['Garantia', product.garantia ?? '—'],
    ['Checkout', props.checkout],
    ['Order bump', product.order_bump_enabled ? (props.bumpCode ?? 'sem produto') : 'Desligado'],
    ['Título do order bump', product.order_bump_title ?? '—'],
    ['Descrição do order bump', product.order_bump_description ?? '—'],
    ['Assunto do e-mail', product.delivery_email_subject ?? 'Padrão'],
    ['Texto do e-mail', product.delivery_email_body ?? 'Padrão'],
    ['Recorrência', product.recorrencia ? RECURRENCE_LABELS[product.recorrencia] : 'Venda única'],
    ['Novas tentativas', RETRY_LABELS[product.retry_policy]],
  ];
  return (
    <dl class="facts">
      {facts.map(([term, value]) => (
        <>
          <dt>{term}</dt>
          <dd class="pre-line">{value}</dd>
        </>
      ))}
    </dl>
  );
}

export function ProductPage(props: {
  product: ProductsTable;
  pageUrl: string;
  bumpCode: string | null;
  checkouts: CheckoutsTable[];
  canEdit: boolean;
  notice: string | null;
  state: ProductFormState;
}) {
  const { product } = props;
  const active = product.ativo === 1;
  const base = `${PATH}/${product.id}`;
  const checkout = product.checkout_id
    ? (props.checkouts.find((row) => row.id === product.checkout_id)?.name ?? product.checkout_id)
    : 'Padrão da loja';
  return (
    <>
      <p>
        <a href={PATH}>Voltar para Produtos</a>
      </p>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      <dl class="facts">
        <dt>Código</dt>
        <dd>
          <code>{product.codigo}</code>
        </dd>
        <dt>Situação</dt>
        <dd>{active ? 'Ativo' : 'Arquivado'}</dd>
        <dt>Página de compra</dt>
        <dd>
          {active ? (
            <a href={props.pageUrl}>{props.pageUrl}</a>
          ) : (
            'Fora do ar enquanto o produto estiver arquivado.'
          )}
        </dd>
      </dl>
      {props.canEdit ? (
        <>
          <ProductFormView action={base} state={props.state} checkouts={props.checkouts} />
          <ArchiveButton base={base} active={active} />
        </>
      ) : (
        <ProductFacts product={product} bumpCode={props.bumpCode} checkout={checkout} />
      )}
    </>
  );
}
