import type { CheckoutsTable } from '../../../domain/checkouts/checkout-object.js';
import { settingsOf } from '../../../domain/checkouts/checkout-service.js';
import {
  CheckboxField,
  Field,
  Notice,
  PostForm,
  Section,
  SelectField,
  TextAreaField,
  DateTime,
} from '../views/components.js';
import { ListTable, NewItemLink, OlderPage, StatusFilter } from '../views/listing.js';
import { maxLengthOf } from './checkout-form.js';
import type { Draft, Problems, SettingKey } from './checkout-form.js';

export const PATH = '/dashboard/checkouts';
/** Where unsaved settings are drawn; an existing checkout's are under `<id>/pre-visualizacao`. */
export const PREVIEW = 'pre-visualizacao';
/** The name of the preview frame, which the form's "Pré-visualizar" button targets. */
const FRAME = 'pre-visualizacao';

export const STATUS_LABELS = { ativos: 'Ativos', arquivados: 'Arquivados' } as const;
export type ListStatus = keyof typeof STATUS_LABELS;

export function CheckoutList(props: {
  rows: CheckoutsTable[];
  status: ListStatus | undefined;
  next: string | null;
  canEdit: boolean;
  notice: string | null;
}) {
  const { rows, status } = props;
  return (
    <>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      <p class="hint">
        Um checkout é a aparência da página de compra: textos, imagens, cores. Cada produto usa o seu ou o
        padrão.
      </p>
      <NewItemLink action={PATH} label="Novo checkout" show={props.canEdit} />
      <StatusFilter action={PATH} labels={STATUS_LABELS} selected={status} />
      {rows.length === 0 ? (
        <p>Nenhum checkout{status ? ' com este status' : ''}.</p>
      ) : (
        <ListTable label="Checkouts" columns={['Nome', 'Título', 'Situação', 'Alterado em']}>
          {rows.map((row) => (
            <tr>
              <td data-label="Nome">
                <a href={`${PATH}/${row.id}`}>{row.name}</a>
                {row.is_default === 1 ? <span class="badge">Padrão</span> : null}
              </td>
              <td data-label="Título">{settingsOf(row).checkout_titulo}</td>
              <td data-label="Situação">{row.archived === 1 ? 'Arquivado' : 'Ativo'}</td>
              <td data-label="Alterado em">
                <DateTime iso={row.updated_at} />
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      <OlderPage action={PATH} status={status} next={props.next} />
    </>
  );
}

const BACKGROUND_OPTIONS = [
  { value: 'cor', label: 'Cor' },
  { value: 'imagem', label: 'Imagem' },
  { value: 'gradiente', label: 'Gradiente' },
] as const;

export interface EditorProps {
  /** The checkout edited; null for a new one. */
  checkout: CheckoutsTable | null;
  /** The checkout whose saved look the frame shows first: this one, or (new) the default it starts from. */
  shownId: string;
  draft: Draft;
  problems: Problems;
  notice: string | null;
  canEdit: boolean;
}

/**
 * The editor: every setting and the name in one form ("Salvar"), beside a frame showing the real
 * purchase page. "Pré-visualizar" posts the form into that frame (no JavaScript needed); the page's
 * script does the same as the merchant types.
 */
export function CheckoutEditor(props: EditorProps) {
  const { checkout, draft, problems, canEdit } = props;
  const base = checkout ? `${PATH}/${checkout.id}` : PATH;
  const previewPost = checkout ? `${base}/${PREVIEW}` : `${PATH}/${PREVIEW}`;
  const previewSrc = `${PATH}/${props.shownId}/${PREVIEW}`;
  const s = draft.settings;
  const text = (key: SettingKey) => (typeof s[key] === 'string' ? (s[key] as string) : '');
  const on = (key: SettingKey) => s[key] === true;
  const field = (key: SettingKey | 'name', label: string, extra: Record<string, unknown> = {}) => (
    <Field
      label={label}
      name={key}
      value={key === 'name' ? draft.name : text(key)}
      error={problems[key]}
      maxLength={maxLengthOf(key)}
      {...extra}
    />
  );
  const hasProblems = Object.keys(problems).length > 0;
  return (
    <>
      <p>
        <a href={PATH}>Voltar para Checkouts</a>
      </p>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      {hasProblems ? <Notice kind="error">Confira os campos destacados: nada foi salvo.</Notice> : null}
      {checkout?.archived === 1 ? (
        <p class="mode-note" role="note">
          Este checkout está arquivado: nenhum produto pode usá-lo até ser desarquivado.
        </p>
      ) : null}
      {canEdit ? null : (
        <p class="mode-note" role="note">
          Seu papel nesta loja permite só ver os checkouts.
        </p>
      )}
      <div class="checkout-editor">
        <PostForm
          action={base}
          id="checkout-form"
          class="checkout-form"
          noValidate
          data-preview-frame={FRAME}
        >
          <fieldset class="editor-fields" disabled={!canEdit}>
            <legend class="visually-hidden">Configurações do checkout</legend>
            <Section title="Identificação">
              {field('name', 'Nome', { required: true, hint: 'Só a equipe vê este nome.' })}
            </Section>
            <Section title="Textos">
              {field('checkout_titulo', 'Título', { required: true })}
              {field('checkout_subtitulo', 'Subtítulo')}
              <TextAreaField
                label="Descrição"
                name="checkout_descricao"
                value={text('checkout_descricao')}
                error={problems.checkout_descricao}
                maxLength={maxLengthOf('checkout_descricao')}
                rows={4}
              />
              {field('checkout_garantia', 'Garantia', { required: true })}
            </Section>
            <Section title="Imagens">
              <CheckboxField
                label="Mostrar logo"
                name="checkout_logo_enabled"
                checked={on('checkout_logo_enabled')}
              />
              {field('checkout_logo_url', 'Endereço do logo', { type: 'url', hint: 'https://…' })}
              <CheckboxField
                label="Mostrar banner"
                name="checkout_banner_enabled"
                checked={on('checkout_banner_enabled')}
              />
              {field('checkout_banner_url', 'Endereço do banner', { type: 'url', hint: 'https://…' })}
            </Section>
            <Section title="Fundo">
              <SelectField
                label="Tipo de fundo"
                name="checkout_fundo_tipo"
                value={text('checkout_fundo_tipo')}
                options={BACKGROUND_OPTIONS}
                error={problems.checkout_fundo_tipo}
              />
              {field('checkout_fundo_cor', 'Cor de fundo', {
                hint: 'Como #F5F5F5. No gradiente, a cor de onde ele parte.',
                spellcheck: false,
              })}
              {field('checkout_fundo_imagem', 'Imagem de fundo', {
                type: 'url',
                hint: 'Usada quando o tipo de fundo é Imagem.',
              })}
            </Section>
            <Section title="Elementos da página">
              <CheckboxField
                label="Mostrar selos de segurança"
                name="checkout_selos_enabled"
                checked={on('checkout_selos_enabled')}
              />
              <CheckboxField
                label="Mostrar campo de cupom"
                name="checkout_cupom_enabled"
                checked={on('checkout_cupom_enabled')}
                hint="Produtos com recorrência não mostram cupom."
              />
            </Section>
          </fieldset>
          {canEdit ? (
            <div class="actions">
              <button type="submit" class="button">
                Salvar
              </button>
              <button
                type="submit"
                class="button button-quiet"
                formAction={previewPost}
                formTarget={FRAME}
                data-preview-button=""
              >
                Pré-visualizar
              </button>
            </div>
          ) : null}
        </PostForm>
        <Section title="Pré-visualização" id="previa">
          <p class="hint">
            A página de compra como o comprador a verá, com um produto de exemplo. Ela não faz pedidos.
          </p>
          <div class="preview-box">
            <iframe class="preview-frame" name={FRAME} title="Pré-visualização" src={previewSrc} />
          </div>
        </Section>
      </div>
      {checkout && canEdit && checkout.is_default === 0 ? (
        <PostForm action={`${base}/${checkout.archived === 1 ? 'desarquivar' : 'arquivar'}`} class="actions">
          {checkout.archived === 1 ? (
            <button type="submit" class="button button-quiet">
              Desarquivar
            </button>
          ) : (
            <>
              <p class="hint">Ao arquivar, os produtos que usam este checkout passam a usar o padrão.</p>
              <button type="submit" class="button button-danger">
                Arquivar
              </button>
            </>
          )}
        </PostForm>
      ) : null}
    </>
  );
}
