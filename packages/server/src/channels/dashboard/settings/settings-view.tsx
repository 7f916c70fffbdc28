import { AUDIT_ACTIONS, actorName } from '../../../domain/accounts/audit.js';
import { ROLE_LABELS, ROLES } from '../../../domain/accounts/roles.js';
import type { Role } from '../../../domain/accounts/roles.js';
import {
  CodeField,
  CopyField,
  CurrentPasswordField,
  Field,
  Notice,
  PostForm,
  Section,
  SectionAnswer,
  TableFrame,
  DateTime,
} from '../views/components.js';
import { PasswordFields } from '../views/password-fields.js';
import { MetaSection } from './meta-settings.js';
import { RecoveryEmailSection } from './recovery-email.js';
import type { RecoveryEmailState } from './recovery-email.js';
import type { SettingsData } from './settings-data.js';
import { CARDS_PATH } from '../cards/cards-view.js';

/** The sections whose forms may be refused, each showing its own error. */
export type SettingsSection = 'store' | 'pixKey' | 'mode' | 'meta' | 'team' | 'password' | 'twoStep';

/** What a POST adds to the page it answers with: a message, a field's error, a shown-once link. */
export interface SettingsState {
  notice?: string | null;
  /** The id of the section the notice is about, where it shows (atop the page without one). */
  noticeIn?: string | undefined;
  errors?: Partial<Record<SettingsSection, string>>;
  /** Values typed into a refused form, shown back. */
  values?: Record<string, string>;
  invite?: { email: string; url: string; emailed: boolean | null };
  totpSetup?: { secret: string; uri: string; qrBase64: string; sealed: string };
  recoveryEmail?: RecoveryEmailState;
}

export const SETTINGS_PATH = '/dashboard/configuracoes';

function StoreSection(props: { data: SettingsData; state: SettingsState; owner: boolean }) {
  const { store } = props.data;
  const values = props.state.values ?? {};
  if (!props.owner) {
    return (
      <Section title="Loja" id="loja">
        <dl class="facts">
          <dt>Nome da loja</dt>
          <dd>{store.name}</dd>
          <dt>Identificador</dt>
          <dd>{store.handle}</dd>
          <dt>Chave Pix</dt>
          <dd>{store.pix_key ?? 'não definida'}</dd>
          <dt>Modo de cobrança</dt>
          <dd>{store.checkout_mode === 'live' ? 'Produção' : 'Teste'}</dd>
        </dl>
        <p>
          <a href={CARDS_PATH}>Cartão de crédito: parcelamento</a>
        </p>
      </Section>
    );
  }
  const live = store.checkout_mode === 'live';
  return (
    <>
      <Section title="Loja" id="loja">
        {props.state.errors?.store ? <Notice kind="error">{props.state.errors.store}</Notice> : null}
        <PostForm action={`${SETTINGS_PATH}/loja`} class="stack">
          <Field
            label="Nome da loja"
            name="name"
            required
            maxLength={100}
            value={values.name ?? store.name}
          />
          <Field
            label="Identificador"
            name="handle"
            required
            maxLength={40}
            value={values.handle ?? store.handle}
            hint="Aparece nos links das páginas de compra (/p/identificador/produto): letras minúsculas, números e hífens. Ao mudar, os links das páginas passam a usar o novo identificador. Os links antigos continuam funcionando e levam ao novo endereço. O identificador antigo fica reservado para esta loja, e os links de pedidos não mudam."
          />
          <button type="submit" class="button">
            Salvar loja
          </button>
        </PostForm>
      </Section>
      <Section title="Pagamentos" id="pagamentos">
        {props.state.errors?.pixKey ? <Notice kind="error">{props.state.errors.pixKey}</Notice> : null}
        <PostForm action={`${SETTINGS_PATH}/pix`} class="stack">
          <Field
            label="Chave Pix"
            name="pix_key"
            required
            maxLength={100}
            value={values.pix_key ?? store.pix_key ?? ''}
            hint="Recebe as cobranças reais: CPF ou CNPJ (só números), e-mail, telefone (+55…) ou chave aleatória."
          />
          <button type="submit" class="button">
            Salvar chave Pix
          </button>
        </PostForm>
        {props.state.errors?.mode ? <Notice kind="error">{props.state.errors.mode}</Notice> : null}
        <PostForm action={`${SETTINGS_PATH}/modo`} class="stack">
          <fieldset class="choices">
            <legend>Modo de cobrança</legend>
            <label class="choice">
              <input type="radio" name="mode" value="test" checked={!live} /> Teste (Pix simulado)
            </label>
            <label class="choice">
              <input type="radio" name="mode" value="live" checked={live} /> Produção (Pix real)
            </label>
            {props.data.liveReady ? null : (
              <p class="hint">
                Produção só fica disponível depois que as configurações do PSP forem enviadas.
              </p>
            )}
          </fieldset>
          <button type="submit" class="button">
            Salvar modo
          </button>
        </PostForm>
        <p>
          <a href={CARDS_PATH}>Cartão de crédito: PSP e parcelamento</a>
        </p>
      </Section>
    </>
  );
}

function TeamSection(props: { data: SettingsData; state: SettingsState; selfId: string }) {
  const members = props.data.members!;
  const { invite } = props.state;
  return (
    <Section title="Equipe" id="equipe">
      {props.state.errors?.team ? <Notice kind="error">{props.state.errors.team}</Notice> : null}
      {invite ? (
        <Notice kind="ok">
          {/* The same words whatever the account is elsewhere: the store learns nothing of it. */}
          <p>
            Convite enviado para {invite.email}. Envie este link à pessoa (vale 72 horas e serve uma vez):
            quem ainda não tem senha cria a sua nele; quem já tem entra no painel com ela e aceita pelo link.
          </p>
          <CopyField label="Link do convite" id="link-do-convite" name="invite_url" value={invite.url} />
          {invite.emailed === true ? <p>O link também foi enviado por e-mail.</p> : null}
          {invite.emailed === false ? <p>Não foi possível enviar o e-mail: copie o link acima.</p> : null}
        </Notice>
      ) : null}
      <TableFrame label="Equipe">
        <table>
          <caption>Pessoas com acesso a esta loja</caption>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Papel</th>
              <th scope="col">Situação</th>
              <th scope="col">
                <span class="visually-hidden">Ações</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((person) => (
              <tr>
                <td data-label="E-mail">{person.email}</td>
                <td data-label="Papel">
                  <PostForm action={`${SETTINGS_PATH}/equipe/papel`} class="inline-form">
                    <input type="hidden" name="email" value={person.email} />
                    <select name="role" aria-label={`Papel de ${person.email}`}>
                      {ROLES.map((role: Role) => (
                        <option value={role} selected={role === person.role}>
                          {ROLE_LABELS[role]}
                        </option>
                      ))}
                    </select>
                    <button
                      type="submit"
                      class="button button-small button-quiet"
                      aria-label={`Alterar papel de ${person.email}`}
                    >
                      Alterar papel
                    </button>
                  </PostForm>
                </td>
                <td data-label="Situação">
                  {person.pending ? 'Convite enviado' : person.two_step ? 'Ativa, em duas etapas' : 'Ativa'}
                </td>
                <td>
                  {person.pending ? (
                    <PostForm action={`${SETTINGS_PATH}/equipe/reenviar`}>
                      <input type="hidden" name="email" value={person.email} />
                      <button
                        type="submit"
                        class="button button-small button-quiet"
                        aria-label={`Reenviar convite para ${person.email}`}
                      >
                        Reenviar convite
                      </button>
                    </PostForm>
                  ) : null}
                  {person.id !== props.selfId && person.two_step && !person.pending ? (
                    <PostForm action={`${SETTINGS_PATH}/equipe/duas-etapas`}>
                      <input type="hidden" name="email" value={person.email} />
                      <button
                        type="submit"
                        class="button button-small button-quiet"
                        aria-label={`Redefinir duas etapas de ${person.email}`}
                      >
                        Redefinir duas etapas
                      </button>
                    </PostForm>
                  ) : null}
                  {person.id === props.selfId ? null : (
                    <PostForm action={`${SETTINGS_PATH}/equipe/remover`}>
                      <input type="hidden" name="email" value={person.email} />
                      <button
                        type="submit"
                        class="button button-small button-quiet"
                        aria-label={`Remover ${person.email}`}
                      >
                        Remover
                      </button>
                    </PostForm>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      <h3>Convidar</h3>
      <PostForm action={`${SETTINGS_PATH}/equipe/convidar`} class="stack">
        <Field
          label="E-mail"
          name="email"
          type="email"
          required
          maxLength={254}
          value={props.state.values?.email ?? ''}
        />
        <div class="field">
          <label for="f-role">Papel</label>
          <select id="f-role" name="role">
            {ROLES.map((role: Role) => (
              <option value={role} selected={role === 'viewer'}>
                {ROLE_LABELS[role]}
              </option>
            ))}
          </select>
          <p class="hint">Proprietário: tudo. Editor: produtos, checkouts e cupons. Leitor: só consulta.</p>
        </div>
        <button type="submit" class="button">
          Convidar
        </button>
      </PostForm>
    </Section>
  );
}

function AccountSection(props: { data: SettingsData; state: SettingsState }) {
  const { errors = {}, totpSetup } = props.state;
  return (
    <Section title="Minha conta" id="minha-conta">
      <h3>Senha</h3>
      {errors.password ? <Notice kind="error">{errors.password}</Notice> : null}
      <PostForm action={`${SETTINGS_PATH}/conta/senha`} class="stack">
        <CurrentPasswordField label="Senha atual" name="current" />
        <PasswordFields />
        <button type="submit" class="button">
          Alterar senha
        </button>
      </PostForm>
      <p class="hint">Ao trocar a senha, as outras sessões abertas com a sua conta são encerradas.</p>
      <h3>Verificação em duas etapas</h3>
      {errors.twoStep ? <Notice kind="error">{errors.twoStep}</Notice> : null}
      {totpSetup ? (
        // The answer to "Ativar verificação em duas etapas": focused, so the page shows it.
        <div class="stack" tabIndex={-1} data-answer>
          <p>
            No aplicativo autenticador (Google Authenticator, Authy, 1Password…), leia o código QR ou digite a
            chave abaixo. Depois digite o código de 6 dígitos que ele mostrar.
          </p>
          <img
            class="qr"
            src={`data:image/png;base64,${totpSetup.qrBase64}`}
            alt="Código QR da verificação em duas etapas"
          />
          <p>
            Chave: <code class="secret">{totpSetup.secret}</code>
          </p>
          <p>
            Endereço: <code class="secret">{totpSetup.uri}</code>
          </p>
          <PostForm action={`${SETTINGS_PATH}/conta/duas-etapas/ativar`} class="stack">
            <input type="hidden" name="setup" value={totpSetup.sealed} />
            <CodeField />
            <CurrentPasswordField label="Sua senha" name="password" id="f-ativar-password" />
            <button type="submit" class="button">
              Ativar
            </button>
          </PostForm>
        </div>
      ) : props.data.twoStep ? (
        <>
          <p>Ativada: ao entrar, o painel pede um código do seu aplicativo autenticador.</p>
          <PostForm action={`${SETTINGS_PATH}/conta/duas-etapas/desativar`} class="stack">
            {/* "Nova senha" above is also `password`: its own id, so each label names its field. */}
            <CurrentPasswordField label="Sua senha" name="password" id="f-desativar-password" />
            <button type="submit" class="button button-danger">
              Desativar verificação em duas etapas
            </button>
          </PostForm>
        </>
      ) : (
        <>
          <p>Desativada. Com ela, entrar pede também um código do seu celular.</p>
          <PostForm action={`${SETTINGS_PATH}/conta/duas-etapas/configurar`}>
            <button type="submit" class="button">
              Ativar verificação em duas etapas
            </button>
          </PostForm>
        </>
      )}
    </Section>
  );
}

function AuditSection(props: { data: SettingsData }) {
  const rows = props.data.audit!;
  return (
    <Section title="Registro de atividades" id="registro">
      {rows.length === 0 ? (
        <p>Nada registrado ainda.</p>
      ) : (
        <TableFrame label="Registro de atividades">
          <table>
            <thead>
              <tr>
                <th scope="col">Quando</th>
                <th scope="col">Quem</th>
                <th scope="col">O quê</th>
                <th scope="col">Detalhe</th>
                <th scope="col">IP</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr>
                  <td data-label="Quando">
                    <DateTime iso={row.created_at} />
                  </td>
                  <td data-label="Quem">
                    {/* A key's prefix is an identifier a developer matches, shown as code. */}
                    {row.actor_kind === 'api_key' ? (
                      <>
                        Chave <code>{row.actor_label}</code>
                      </>
                    ) : (
                      actorName(row)
                    )}
                  </td>
                  <td data-label="O quê">{AUDIT_ACTIONS[row.action] ?? row.action}</td>
                  <td data-label="Detalhe">{row.detail}</td>
                  <td data-label="IP">{row.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
      {props.data.auditNext ? (
        <p>
          <a href={`${SETTINGS_PATH}?antes=${encodeURIComponent(props.data.auditNext)}#registro`}>
            Atividades mais antigas
          </a>
        </p>
      ) : null}
    </Section>
  );
}

/** Configurações: the store, payments, team and audit log (owners), and the person's own account. */
export function SettingsPage(props: {
  data: SettingsData;
  state: SettingsState;
  owner: boolean;
  selfId: string;
}) {
  const { notice, noticeIn } = props.state;
  return (
    <SectionAnswer.Provider value={notice && noticeIn ? { section: noticeIn, notice } : null}>
      {notice && !noticeIn ? <Notice kind="ok">{notice}</Notice> : null}
      <StoreSection data={props.data} state={props.state} owner={props.owner} />
      {props.owner ? (
        <MetaSection
          store={props.data.store}
          action={`${SETTINGS_PATH}/meta`}
          error={props.state.errors?.meta}
          values={props.state.errors?.meta ? props.state.values : undefined}
        />
      ) : null}
      <RecoveryEmailSection
        store={props.data.store}
        owner={props.owner}
        state={props.state.recoveryEmail ?? {}}
      />
      {props.owner ? <TeamSection data={props.data} state={props.state} selfId={props.selfId} /> : null}
      <AccountSection data={props.data} state={props.state} />
      {props.owner ? <AuditSection data={props.data} /> : null}
    </SectionAnswer.Provider>
  );
}
