import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SecretBoxError } from '../../../platform/values/secret-box.js';
import { renderQrPng } from '../../../platform/brcode/index.js';
import { normalizePixSettings } from '../../../domain/pix/pix-settings.js';
import { isCheckoutMode } from '../../../domain/stores/checkout-mode.js';
import { checkoutModeProblem } from '../../../flows/check-checkout-mode.js';
import { handleFault, HANDLE_MAX_LENGTH, HANDLE_MIN_LENGTH } from '../../../domain/stores/handle.js';
import { updateStoreSettings } from '../../../domain/stores/store-settings.js';
import { findStore, HandleTakenError, updateStore } from '../../../domain/stores/stores.js';
import { auditRequest, auditEveryStore } from '../../../domain/accounts/audit.js';
import type { AuditAction } from '../../../domain/accounts/audit.js';
import { inviteUrl } from '../../../domain/accounts/invites.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../../domain/accounts/passwords.js';
import { isRole, ROLE_LABELS } from '../../../domain/accounts/roles.js';
import { endOtherSessions } from '../../../domain/accounts/sessions.js';
import { addMember, changeMemberRole, removeMember, TeamError } from '../../../domain/accounts/team.js';
import { matchTotp, newTotpSecret, totpUri } from '../../../domain/accounts/totp.js';
import { findUser } from '../../../domain/accounts/users.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { definePages, guard, member, sendPage } from '../shell/page.js';
import { inviteEmail } from './invite-email.js';
import { metaFormChanges, metaRemoval } from './meta-settings.js';
import { RECOVERY_EMAIL_SAVED, recoveryEmailRoutes } from './recovery-email.js';
import { loadSettings } from './settings-data.js';
import { SettingsPage } from './settings-view.js';
import type { SettingsSection, SettingsState } from './settings-view.js';

const PATH = '/dashboard/configuracoes';

/** What a redirect after a change says; the query names one of these, never free text. */
const NOTICES = {
  loja: 'Dados da loja salvos.',
  pix: 'Chave Pix salva.',
  modo: 'Modo de cobrança salvo.',
  meta: 'Conversões Meta salvas.',
  'meta-removido': 'Conversões Meta removidas.',
  recuperacao: RECOVERY_EMAIL_SAVED,
  removido: 'Pessoa removida da loja.',
  papel: 'Papel alterado.',
  senha: 'Senha alterada. As outras sessões abertas com a sua conta foram encerradas.',
  'duas-etapas-ativada': 'Verificação em duas etapas ativada.',
  'duas-etapas-desativada': 'Verificação em duas etapas desativada.',
} as const;
type NoticeKey = keyof typeof NOTICES;

const Csrf = { _csrf: Type.Optional(Type.String()) };
const Query = Type.Object({
  aviso: Type.Optional(Type.String({ maxLength: 40 })),
  antes: Type.Optional(Type.String({ maxLength: 100 })),
});
const StoreBody = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  handle: Type.String({ maxLength: 1000 }),
  ...Csrf,
});
const PixBody = Type.Object({ pix_key: Type.String({ maxLength: 1000 }), ...Csrf });
const ModeBody = Type.Object({ mode: Type.String({ maxLength: 20 }), ...Csrf });
const MetaBody = Type.Object({
  pixel_id: Type.String({ maxLength: 1000 }),
  access_token: Type.String({ maxLength: 2000 }),
  test_event_code: Type.String({ maxLength: 1000 }),
  browser_pixel: Type.Optional(Type.String({ maxLength: 10 })),
  ...Csrf,
});
const InviteBody = Type.Object({
  email: Type.String({ maxLength: 1000 }),
  role: Type.String({ maxLength: 20 }),
  ...Csrf,
});
const RemoveBody = Type.Object({ email: Type.String({ maxLength: 1000 }), ...Csrf });
const RoleBody = Type.Object({
  email: Type.String({ maxLength: 1000 }),
  role: Type.String({ maxLength: 20 }),
  ...Csrf,
});
const LAST_OWNER = 'A loja precisa de pelo menos um proprietário.';
const PasswordBody = Type.Object({
  current: Type.String({ maxLength: 1000 }),
  password: Type.String({ maxLength: 1000 }),
  confirmation: Type.String({ maxLength: 1000 }),
  ...Csrf,
});
const TotpConfirmBody = Type.Object({
  setup: Type.String({ maxLength: 1000 }),
  code: Type.String({ maxLength: 20 }),
  ...Csrf,
});
const TotpOffBody = Type.Object({ password: Type.String({ maxLength: 1000 }), ...Csrf });

const STORE_NAME_MAX = 100;
const HANDLE_FAULTS = {
  length: `O identificador precisa ter de ${HANDLE_MIN_LENGTH} a ${HANDLE_MAX_LENGTH} caracteres.`,
  characters: 'Use só letras minúsculas, números e hífens, começando e terminando com letra ou número.',
};
const MODE_LABELS = { test: 'Teste', live: 'Produção' };

/**
 * Configurações: the store's name, handle, Pix key and checkout mode (owners, through the same store
 * services as the CLI), the team and its invites, the person's password and two-step verification,
 * and the owners' audit log.
 */
export const settingsPages = definePages('configuracoes', async (app, services) => {
  const { db, config } = app;
  const { secretBox, throttle } = services;

  async function show(
    request: FastifyRequest,
    reply: FastifyReply,
    state: SettingsState,
    status = 200,
    auditBefore?: string,
  ) {
    const session = member(request);
    const data = await loadSettings(db, request, auditBefore);
    return sendPage(request, reply, services, {
      title: 'Configurações',
      nav: 'configuracoes',
      status,
      body: (
        <SettingsPage data={data} state={state} owner={session.role === 'owner'} selfId={session.userId} />
      ),
    });
  }

  const refuse = (
    request: FastifyRequest,
    reply: FastifyReply,
    section: SettingsSection,
    message: string,
    values: Record<string, string> = {},
    status = 400,
  ) => show(request, reply, { errors: { [section]: message }, values }, status);

  const done = (reply: FastifyReply, notice: NoticeKey, anchor: string) =>
    reply.redirect(`${PATH}?aviso=${notice}#${anchor}`, 303);

  /** A change to the person's own account, in the audit log of every store they belong to. */
  const recordForPerson = (request: FastifyRequest, action: AuditAction) => {
    const session = member(request);
    return auditEveryStore(db, session.userId, {
      userId: session.userId,
      action,
      detail: session.email,
      ip: request.ip,
    });
  };

  /** The person's password, checked under the login throttle: a stolen session cannot guess it. */
  async function passwordMatches(request: FastifyRequest, password: string): Promise<boolean | number> {
    const session = member(request);
    const wait = await throttle.heldFor(request.ip, session.email);
    if (wait !== null) return wait;
    const user = await findUser(db, session.userId);
    const right = user?.password_hash ? await verifyPassword(password, user.password_hash) : false;
    if (!right) await throttle.failed(request.ip, session.email);
    return right;
  }

  function tooMany(reply: FastifyReply, wait: number): string {
    reply.header('retry-after', String(wait));
    return 'Muitas tentativas com a senha errada. Tente de novo daqui a pouco.';
  }

  app.get('/configuracoes', guard('viewer', { querystring: Query }), async (request, reply) => {
    const { aviso, antes } = request.query;
    const notice = aviso && aviso in NOTICES ? NOTICES[aviso as NoticeKey] : null;
    return show(request, reply, { notice }, 200, antes);
  });

  app.post('/configuracoes/loja', guard('owner', { body: StoreBody }), async (request, reply) => {
    const { storeId } = member(request);
    const name = request.body.name.trim();
    const handle = request.body.handle.trim();
    const values = { name, handle };
    if (name === '' || name.length > STORE_NAME_MAX) {
      return refuse(
        request,
        reply,
        'loja',
        `O nome precisa ter de 1 a ${STORE_NAME_MAX} caracteres.`,
        values,
      );
    }
    const fault = handleFault(handle);
    if (fault) return refuse(request, reply, 'loja', HANDLE_FAULTS[fault], values);
    const before = (await findStore(db, storeId))!;
    try {
      await updateStore(db, storeId, { name, handle });
    } catch (error) {
      if (!(error instanceof HandleTakenError)) throw error;
      return refuse(request, reply, 'loja', 'Este identificador já é usado por outra loja.', values, 409);
    }
    const changes = [
      before.name === name ? null : `nome: ${before.name} → ${name}`,
      before.handle === handle ? null : `identificador: ${before.handle} → ${handle}`,
    ].filter(Boolean);
    if (changes.length > 0) await auditRequest(db, request, 'store_updated', changes.join('; '));
    return done(reply, 'loja', 'loja');
  });

  recoveryEmailRoutes(app, services, {
    refuse: (request, reply, recoveryEmail) => show(request, reply, { recoveryEmail }, 400),
    saved: (reply) => done(reply, 'recuperacao', 'recuperacao'),
  });

  app.post('/configuracoes/pix', guard('owner', { body: PixBody }), async (request, reply) => {
    const { storeId } = member(request);
    let pixKey: string;
    try {
      pixKey = normalizePixSettings({ pixKey: request.body.pix_key }).pixKey!;
    } catch {
      return refuse(
        request,
        reply,
        'pix',
        'Chave Pix inválida. Use CPF ou CNPJ (só números), e-mail, telefone como +55… ou uma chave aleatória.',
        { pix_key: request.body.pix_key },
      );
    }
    const before = (await findStore(db, storeId))!;
    await updateStore(db, storeId, { pixKey });
    if (before.pix_key !== pixKey)
      await auditRequest(db, request, 'pix_key_changed', `${before.pix_key ?? '—'} → ${pixKey}`);
    return done(reply, 'pix', 'pagamentos');
  });

  app.post('/configuracoes/modo', guard('owner', { body: ModeBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { mode } = request.body;
    if (!isCheckoutMode(mode)) return refuse(request, reply, 'modo', 'Escolha Teste ou Produção.');
    if ((await checkoutModeProblem(db, storeId, mode)) !== null) {
      return refuse(
        request,
        reply,
        'modo',
        'Para cobrar em produção, a loja precisa antes das configurações do PSP e de uma chave Pix. Até lá, fique em Teste.',
      );
    }
    const before = (await findStore(db, storeId))!;
    await updateStore(db, storeId, { checkoutMode: mode });
    if (before.checkout_mode !== mode) {
      await auditRequest(
        db,
        request,
        'checkout_mode_changed',
        `${MODE_LABELS[before.checkout_mode]} → ${MODE_LABELS[mode]}`,
      );
    }
    return done(reply, 'modo', 'pagamentos');
  });

  // Meta conversions: PATCH /store's rules and service; the token is never shown back, even on an error.
  app.post('/configuracoes/meta', guard('owner', { body: MetaBody }), async (request, reply) => {
    const store = (await findStore(db, member(request).storeId))!;
    const { _csrf: _token, access_token: _secret, ...values } = request.body;
    const changes = metaFormChanges(store, request.body, secretBox);
    if ('error' in changes) return refuse(request, reply, 'meta', changes.error, values);
    await updateStoreSettings(db, store, changes.set);
    const detail = [
      `pixel ${changes.set.meta_pixel_id}`,
      changes.set.meta_access_token_sealed ? 'token novo' : null,
      changes.set.meta_browser_pixel ? 'pixel no navegador' : null,
    ].filter(Boolean);
    await auditRequest(db, request, 'meta_conversions_changed', detail.join('; '));
    return done(reply, 'meta', 'meta');
  });

  app.post('/configuracoes/meta/remover', guard('owner'), async (request, reply) => {
    const store = (await findStore(db, member(request).storeId))!;
    await updateStoreSettings(db, store, metaRemoval(store, secretBox));
    await auditRequest(db, request, 'meta_conversions_changed', 'removidas');
    return done(reply, 'meta-removido', 'meta');
  });

  app.post('/configuracoes/equipe/convidar', guard('owner', { body: InviteBody }), async (request, reply) => {
    const { storeId, storeName } = member(request);
    const { email, role } = request.body;
    if (!isRole(role)) return refuse(request, reply, 'equipe', 'Escolha um papel.', { email });
    let added;
    try {
      added = await addMember(db, { storeId, email, role, invite: true });
    } catch (error) {
      if (!(error instanceof TeamError)) throw error;
      const message =
        error.code === 'invalid_email' ? 'E-mail inválido.' : 'Esta pessoa já faz parte da loja.';
      return refuse(request, reply, 'equipe', message, { email }, error.code === 'invalid_email' ? 400 : 409);
    }
    await auditRequest(db, request, 'member_invited', `${added.email} (${ROLE_LABELS[role]})`);
    const url = added.inviteToken ? inviteUrl(config.publicUrl, added.inviteToken) : null;
    let emailed: boolean | null = null;
    if (url && services.mailer && config.smtp) {
      const sent = await services.mailer.send(
        inviteEmail(config.smtp, { email: added.email, storeName, role, url }),
      );
      if (!sent.ok) request.log.warn({ error: sent.error }, 'invite e-mail not sent');
      emailed = sent.ok;
    }
    return show(request, reply, { invite: { email: added.email, url, emailed } });
  });

  app.post('/configuracoes/equipe/remover', guard('owner', { body: RemoveBody }), async (request, reply) => {
    const { storeId } = member(request);
    try {
      const removed = await removeMember(db, storeId, request.body.email);
      await auditRequest(db, request, 'member_removed', `${removed.email} (${ROLE_LABELS[removed.role]})`);
    } catch (error) {
      if (!(error instanceof TeamError)) throw error;
      if (error.code === 'not_member') throw new DashboardError(404, 'Esta pessoa não faz parte da loja.');
      return refuse(request, reply, 'equipe', LAST_OWNER, {}, 409);
    }
    return done(reply, 'removido', 'equipe');
  });

  app.post('/configuracoes/equipe/papel', guard('owner', { body: RoleBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { email, role } = request.body;
    if (!isRole(role)) return refuse(request, reply, 'equipe', 'Escolha um papel.');
    try {
      const changed = await changeMemberRole(db, storeId, email, role);
      if (changed.from !== changed.to)
        await auditRequest(
          db,
          request,
          'member_role_changed',
          `${changed.email}: ${ROLE_LABELS[changed.from]} → ${ROLE_LABELS[changed.to]}`,
        );
    } catch (error) {
      if (!(error instanceof TeamError)) throw error;
      if (error.code === 'not_member') throw new DashboardError(404, 'Esta pessoa não faz parte da loja.');
      return refuse(request, reply, 'equipe', LAST_OWNER, {}, 409);
    }
    return done(reply, 'papel', 'equipe');
  });

  app.post('/configuracoes/conta/senha', guard('viewer', { body: PasswordBody }), async (request, reply) => {
    const session = member(request);
    const { current, password, confirmation } = request.body;
    const matches = await passwordMatches(request, current);
    if (typeof matches === 'number') return refuse(request, reply, 'senha', tooMany(reply, matches), {}, 429);
    if (!matches) return refuse(request, reply, 'senha', 'Senha atual incorreta.');
    const problem =
      passwordProblem(password) ??
      (password === confirmation ? null : 'As duas senhas novas não são iguais.');
    if (problem) return refuse(request, reply, 'senha', problem);
    await db
      .updateTable('users')
      .set({ password_hash: await hashPassword(password) })
      .where('id', '=', session.userId)
      .execute();
    await endOtherSessions(db, session.userId, session.idHash);
    await recordForPerson(request, 'password_changed');
    return done(reply, 'senha', 'minha-conta');
  });

  /** The setup step: a new secret, shown with its QR, carried sealed to the confirmation. */
  async function totpSetup(request: FastifyRequest, secret: string) {
    const session = member(request);
    const uri = totpUri(secret, session.email, 'Storefront');
    return {
      secret,
      uri,
      qrBase64: (await renderQrPng(uri)).base64,
      sealed: secretBox.seal(secret, `totp-setup:${session.userId}`),
    };
  }

  app.post('/configuracoes/conta/duas-etapas/configurar', guard('viewer'), async (request, reply) =>
    show(request, reply, { totpSetup: await totpSetup(request, newTotpSecret()) }),
  );

  app.post(
    '/configuracoes/conta/duas-etapas/ativar',
    guard('viewer', { body: TotpConfirmBody }),
    async (request, reply) => {
      const session = member(request);
      let secret: string;
      try {
        secret = secretBox.open(request.body.setup, `totp-setup:${session.userId}`);
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
        return refuse(request, reply, 'duas-etapas', 'Configuração inválida. Comece de novo.');
      }
      const step = matchTotp(secret, request.body.code, null);
      if (step === null) {
        return show(
          request,
          reply,
          {
            totpSetup: await totpSetup(request, secret),
            errors: { 'duas-etapas': 'Código incorreto. Tente de novo.' },
          },
          400,
        );
      }
      await db
        .updateTable('users')
        .set({ totp_secret_sealed: secretBox.seal(secret, session.userId), totp_last_step: step })
        .where('id', '=', session.userId)
        .execute();
      await recordForPerson(request, 'totp_enabled');
      return done(reply, 'duas-etapas-ativada', 'minha-conta');
    },
  );

  app.post(
    '/configuracoes/conta/duas-etapas/desativar',
    guard('viewer', { body: TotpOffBody }),
    async (request, reply) => {
      const session = member(request);
      const matches = await passwordMatches(request, request.body.password);
      if (typeof matches === 'number')
        return refuse(request, reply, 'duas-etapas', tooMany(reply, matches), {}, 429);
      if (!matches) return refuse(request, reply, 'duas-etapas', 'Senha incorreta.');
      await db
        .updateTable('users')
        .set({ totp_secret_sealed: null, totp_last_step: null })
        .where('id', '=', session.userId)
        .execute();
      await recordForPerson(request, 'totp_disabled');
      return done(reply, 'duas-etapas-desativada', 'minha-conta');
    },
  );
});
