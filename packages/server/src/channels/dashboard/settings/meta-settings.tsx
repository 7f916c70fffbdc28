import type { SecretBox } from '../../../platform/values/secret-box.js';
import { ApiError } from '../../../platform/http/api-error.js';
import { validationError } from '../../../platform/http/errors.js';
import { validatorCompiler } from '../../../platform/http/validation.js';
import type { AjvIssue } from '../../../platform/http/validation-messages.js';
import { UpdateStoreBody } from '../../../domain/stores/store-object.js';
import { storeSettingsChanges } from '../../../domain/stores/store-settings.js';
import type { StoresTable } from '../../../domain/stores/stores.js';
import { Field, Notice, PostForm, Section } from '../views/components.js';

/** The form as posted; an empty token keeps the one kept, an empty test code removes it. */
export interface MetaForm {
  pixel_id: string;
  access_token: string;
  test_event_code: string;
  browser_pixel?: string | undefined;
}

/** PATCH /store's own schema: the form is checked by the very rules the API applies. */
const checkBody = validatorCompiler({
  schema: UpdateStoreBody,
  httpPart: 'body',
  method: 'PATCH',
  url: '/store',
});

/** The API's words on a field, in the dashboard's. */
const FIELD_MESSAGES: Record<string, string> = {
  'conversions.meta.pixel_id': 'O ID do pixel tem só números (até 32 dígitos).',
  'conversions.meta.access_token':
    'Informe o token de acesso como o Meta mostra (sem espaços). Na primeira vez ele é obrigatório.',
  'conversions.meta.test_event_code': 'O código de teste tem até 100 caracteres.',
};

/**
 * The store's columns to change for the form, by PATCH /store's rules (the same schema, the same
 * `storeSettingsChanges`), or the message to show.
 */
export function metaFormChanges(
  store: StoresTable,
  form: MetaForm,
  box: SecretBox,
): { set: Partial<StoresTable> } | { error: string } {
  const token = form.access_token.trim();
  const body = {
    conversions: {
      meta: {
        pixel_id: form.pixel_id.trim(),
        ...(token !== '' && { access_token: token }),
        test_event_code: form.test_event_code.trim() || null,
        browser_pixel: form.browser_pixel === 'on',
      },
    },
  };
  try {
    if (!checkBody(body)) throw validationError((checkBody as { errors: AjvIssue[] }).errors, 'body');
    return { set: storeSettingsChanges(store, body, box) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { error: FIELD_MESSAGES[error.param ?? ''] ?? 'Confira os campos das conversões Meta.' };
  }
}

/** Removing Meta (PATCH /store's `conversions.meta: null`): its token goes with it. */
export const metaRemoval = (store: StoresTable, box: SecretBox) =>
  storeSettingsChanges(store, { conversions: { meta: null } }, box);

/** Conversões Meta on Configurações (owners): the pixel, the write-only token, the test code, the browser pixel. */
export function MetaSection(props: {
  store: StoresTable;
  action: string;
  error?: string | undefined;
  values?: Record<string, string> | undefined;
}) {
  const { store } = props;
  const values = props.values ?? {};
  const set = store.meta_pixel_id !== null;
  const tokenSet = store.meta_access_token_sealed !== null;
  const browser =
    values.pixel_id !== undefined ? values.browser_pixel === 'on' : store.meta_browser_pixel === 1;
  return (
    <Section title="Conversões Meta" id="meta">
      <p>
        Envia ao Meta (API de Conversões) o início de cada pedido (InitiateCheckout) e cada venda aprovada
        (Purchase), com os dados do comprador cifrados em SHA-256. O resultado de cada envio aparece na página
        da venda.
      </p>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <PostForm action={props.action} class="stack">
        <Field
          label="ID do pixel"
          name="pixel_id"
          required
          inputMode="numeric"
          maxLength={32}
          value={values.pixel_id ?? store.meta_pixel_id ?? ''}
        />
        <Field
          label="Token de acesso"
          name="access_token"
          type="password"
          autoComplete="off"
          maxLength={1000}
          value=""
          required={!tokenSet}
          hint={
            tokenSet
              ? 'Um token está guardado (cifrado, nunca é mostrado). Deixe em branco para mantê-lo.'
              : 'Gerado no Gerenciador de Eventos do Meta; fica guardado cifrado e nunca é mostrado.'
          }
        />
        <Field
          label="Código de evento de teste"
          name="test_event_code"
          maxLength={100}
          value={values.test_event_code ?? store.meta_test_event_code ?? ''}
          hint="Opcional: com ele os eventos aparecem só em Eventos de teste do Meta. Deixe em branco em produção."
        />
        <label class="choice">
          <input type="checkbox" name="browser_pixel" checked={browser} /> Pixel no navegador (nas páginas de
          compra desta loja, com os mesmos IDs de evento)
        </label>
        <button type="submit" class="button">
          Salvar conversões Meta
        </button>
      </PostForm>
      {set ? (
        <PostForm action={`${props.action}/remover`}>
          <button type="submit" class="button button-quiet">
            Remover conversões Meta
          </button>
        </PostForm>
      ) : null}
    </Section>
  );
}
