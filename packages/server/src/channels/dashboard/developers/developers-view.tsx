import type { ApiKeyInfo } from '../../../platform/api-keys/api-keys.js';
import { SCOPES } from '../../../platform/api-keys/scopes.js';
import { EVENT_TYPES } from '../../../platform/outbox/event-types.js';
import type { WebhookEndpointsTable } from '../../../domain/webhooks/endpoint-object.js';
import type { WebhookDeliveriesTable } from '../../../domain/webhooks/delivery-object.js';
import { CopyField, Field, Notice, PostForm, Section, TableFrame, DateTime } from '../views/components.js';
import { ENDPOINT_STATUS_LABELS } from '../views/format.js';
import { failureReasonInPortuguese } from '../../../platform/outbound/failure-reason.js';
import type { EventsPage } from './developers-data.js';

export const PATH = '/dashboard/desenvolvedores';
const MODE = (live: boolean) => (live ? 'Produção' : 'Teste');

/** A secret shown this once: the page that shows it is never stored, and no later page has it. */
function OnceSecret(props: { label: string; value: string }) {
  return (
    <Notice kind="ok">
      <p>{props.label} Copie agora: ela não será mostrada de novo.</p>
      <CopyField label={props.label} id="segredo-unico" value={props.value} />
    </Notice>
  );
}

function ModeChoice(props: { name: string }) {
  return (
    <fieldset class="choices">
      <legend>Modo</legend>
      <label class="choice">
        <input type="radio" name={props.name} value="test" checked /> Teste
      </label>
      <label class="choice">
        <input type="radio" name={props.name} value="live" /> Produção
      </label>
    </fieldset>
  );
}

export interface DevelopersState {
  notice?: string | null;
  errors?: { keys?: string; webhooks?: string };
  newKey?: string;
  newSecret?: { endpointId: string; secret: string };
  url?: string;
}

export function DevelopersPage(props: {
  keys: ApiKeyInfo[];
  endpoints: WebhookEndpointsTable[];
  state: DevelopersState;
}) {
  const { state } = props;
  return (
    <>
      {state.notice ? <Notice kind="ok">{state.notice}</Notice> : null}
      <Section title="Chaves de API" id="chaves">
        {state.newKey ? <OnceSecret label="Nova chave de API." value={state.newKey} /> : null}
        {state.errors?.keys ? <Notice kind="error">{state.errors.keys}</Notice> : null}
        {props.keys.length === 0 ? (
          <p>Nenhuma chave ainda.</p>
        ) : (
          <TableFrame label="Chaves desta loja">
            <table>
              <caption>Chaves desta loja</caption>
              <thead>
                <tr>
                  <th scope="col">Chave</th>
                  <th scope="col">Modo</th>
                  <th scope="col">Permissões</th>
                  <th scope="col">Criada</th>
                  <th scope="col">Situação</th>
                </tr>
              </thead>
              <tbody>
                {props.keys.map((key) => (
                  <tr>
                    <td data-label="Chave">
                      <code>{key.prefix}</code>
                    </td>
                    <td data-label="Modo">{MODE(key.mode === 'live')}</td>
                    <td data-label="Permissões">
                      {key.scopes.length === SCOPES.length ? 'todas' : key.scopes.join(', ')}
                    </td>
                    <td data-label="Criada">
                      <DateTime iso={key.created_at} />
                    </td>
                    <td data-label="Situação">
                      {key.revoked_at ? (
                        <>
                          Revogada em <DateTime iso={key.revoked_at} />
                        </>
                      ) : (
                        <PostForm action={`${PATH}/chaves/${key.id}/revogar`}>
                          <button
                            type="submit"
                            class="button button-danger"
                            aria-label={`Revogar ${key.prefix}`}
                          >
                            Revogar
                          </button>
                        </PostForm>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
        <h3>Nova chave</h3>
        <PostForm action={`${PATH}/chaves`} class="stack">
          <ModeChoice name="mode" />
          <fieldset class="choices">
            <legend>Permissões</legend>
            <label class="choice">
              <input type="checkbox" name="scopes" value="all" /> todas
            </label>
            {SCOPES.map((scope) => (
              <label class="choice">
                <input type="checkbox" name="scopes" value={scope} /> {scope}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="button">
            Nova chave
          </button>
        </PostForm>
      </Section>
      <Section title="Endpoints de webhook" id="webhooks">
        {state.errors?.webhooks ? <Notice kind="error">{state.errors.webhooks}</Notice> : null}
        {props.endpoints.length === 0 ? (
          <p>Nenhum endpoint ainda.</p>
        ) : (
          <ul class="stack">
            {props.endpoints.map((endpoint) => (
              <li>
                <a href={`${PATH}/webhooks/${endpoint.id}`}>{endpoint.url}</a> ·{' '}
                {MODE(endpoint.livemode === 1)} · {ENDPOINT_STATUS_LABELS[endpoint.status]}
              </li>
            ))}
          </ul>
        )}
        <h3>Novo endpoint</h3>
        <PostForm action={`${PATH}/webhooks`} class="stack">
          <Field
            label="URL"
            name="url"
            type="url"
            required
            value={state.url ?? ''}
            hint="Endereço https público, na porta 443 ou 8443."
          />
          <ModeChoice name="mode" />
          <fieldset class="choices">
            <legend>Eventos</legend>
            {EVENT_TYPES.map((type) => (
              <label class="choice">
                <input type="checkbox" name="events" value={type} /> {type}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="button">
            Novo endpoint
          </button>
        </PostForm>
      </Section>
      <p>
        <a href={`${PATH}/eventos`}>Registro de eventos</a>
      </p>
    </>
  );
}

export function EndpointPage(props: {
  endpoint: WebhookEndpointsTable;
  deliveries: WebhookDeliveriesTable[];
  notice?: string | null;
  error?: string | null;
  secret?: string;
}) {
  const { endpoint } = props;
  const base = `${PATH}/webhooks/${endpoint.id}`;
  return (
    <>
      <p>
        <a href={PATH}>Voltar para Desenvolvedores</a>
      </p>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      {props.secret ? <OnceSecret label="Segredo de assinatura." value={props.secret} /> : null}
      <Section title="Endpoint" id="endpoint">
        <dl class="facts">
          <dt>URL</dt>
          <dd>{endpoint.url}</dd>
          <dt>Modo</dt>
          <dd>{MODE(endpoint.livemode === 1)}</dd>
          <dt>Situação</dt>
          <dd>{ENDPOINT_STATUS_LABELS[endpoint.status]}</dd>
          <dt>Eventos</dt>
          <dd>{(JSON.parse(endpoint.events) as string[]).join(', ')}</dd>
        </dl>
        <div class="actions">
          <PostForm action={`${base}/teste`}>
            <button type="submit" class="button">
              Enviar teste
            </button>
          </PostForm>
          <PostForm action={`${base}/rotacionar`}>
            <button type="submit" class="button">
              Rotacionar segredo
            </button>
          </PostForm>
        </div>
      </Section>
      <Section title="Entregas" id="entregas">
        {props.deliveries.length === 0 ? (
          <p>Nenhuma entrega ainda.</p>
        ) : (
          <TableFrame label="Últimas tentativas">
            <table>
              <caption>Últimas tentativas</caption>
              <thead>
                <tr>
                  <th scope="col">Quando</th>
                  <th scope="col">Evento</th>
                  <th scope="col">Tentativa</th>
                  <th scope="col">Status</th>
                  <th scope="col">Erro</th>
                  <th scope="col">Ação</th>
                </tr>
              </thead>
              <tbody>
                {props.deliveries.map((delivery) => (
                  <tr>
                    <td data-label="Quando">
                      <DateTime iso={delivery.created_at} />
                    </td>
                    <td data-label="Evento">{delivery.event_type}</td>
                    <td data-label="Tentativa">{delivery.attempt}</td>
                    <td data-label="Status">
                      {delivery.delivered_at
                        ? 'entregue'
                        : delivery.next_retry_at
                          ? 'nova tentativa agendada'
                          : 'falhou'}
                      {delivery.response_status === null ? '' : ` (${delivery.response_status})`}
                    </td>
                    <td data-label="Erro">
                      {delivery.error ? failureReasonInPortuguese(delivery.error) : '—'}
                    </td>
                    <td>
                      <PostForm action={`${base}/entregas/${delivery.id}/reenviar`}>
                        <button type="submit" class="button" aria-label={`Reenviar ${delivery.id}`}>
                          Reenviar
                        </button>
                      </PostForm>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
      </Section>
    </>
  );
}

export function EventsLog(props: { page: EventsPage; type: string | undefined }) {
  const more = props.page.next
    ? `${PATH}/eventos?${new URLSearchParams({ ...(props.type ? { tipo: props.type } : {}), antes: props.page.next })}`
    : null;
  return (
    <>
      <p>
        <a href={PATH}>Voltar para Desenvolvedores</a>
      </p>
      <form method="get" action={`${PATH}/eventos`} class="stack">
        <label for="f-tipo">Tipo</label>
        <select id="f-tipo" name="tipo">
          <option value="">Todos</option>
          {[...EVENT_TYPES, 'webhook.test'].map((type) => (
            <option value={type} selected={type === props.type}>
              {type}
            </option>
          ))}
        </select>
        <button type="submit" class="button">
          Filtrar
        </button>
      </form>
      {props.page.events.length === 0 ? (
        <p>Nenhum evento.</p>
      ) : (
        <ol class="stack events">
          {props.page.events.map((event) => (
            <li>
              <p>
                <strong>{event.type}</strong> · {MODE(event.livemode === 1)} ·{' '}
                <DateTime iso={event.created_at} /> · <code>{event.id}</code>
              </p>
              <pre class="event-json" tabIndex={0} aria-label={`Conteúdo de ${event.id}`}>
                {JSON.stringify(JSON.parse(event.payload), null, 2)}
              </pre>
            </li>
          ))}
        </ol>
      )}
      {more ? (
        <p>
          <a href={more}>Eventos mais antigos</a>
        </p>
      ) : null}
    </>
  );
}
