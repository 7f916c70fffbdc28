import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardApp } from '../shell/page.js';
import { member, sendPage } from '../shell/page.js';
import type { DashboardServices } from '../shell/services.js';
import { loadSettings } from './settings-data.js';
import { SETTINGS_PATH, SettingsPage } from './settings-view.js';
import type { SettingsSection, SettingsState } from './settings-view.js';

/*
 * What the sections of Configurações share: one page answers every form of every section, either
 * shown again with that section's error or redirected back with a notice.
 */

/** What a redirect after a change says; the query names one of these, never free text. */
export const NOTICES = {
  loja: 'Dados da loja salvos.',
  pix: 'Chave Pix salva.',
  modo: 'Modo de cobrança salvo.',
  meta: 'Conversões Meta salvas.',
  'meta-removido': 'Conversões Meta removidas.',
  recuperacao: 'E-mail de pedido abandonado salvo.',
  removido: 'Pessoa removida da loja.',
  papel: 'Papel alterado.',
  senha: 'Senha alterada. As outras sessões abertas com a sua conta foram encerradas.',
  'duas-etapas-ativada': 'Verificação em duas etapas ativada.',
  'duas-etapas-desativada': 'Verificação em duas etapas desativada.',
  'duas-etapas-redefinida':
    'Verificação em duas etapas redefinida: a pessoa entra só com a senha e pode ativá-la de novo no novo celular.',
} as const;
export type NoticeKey = keyof typeof NOTICES;

/**
 * The section (its id, the redirect's anchor) each notice is about: the notice shows atop that
 * section, where the page opens, not atop the page. A notice without one shows atop the page.
 */
export const NOTICE_SECTIONS: Partial<Record<NoticeKey, string>> = {
  loja: 'loja',
  pix: 'pagamentos',
  modo: 'pagamentos',
  meta: 'meta',
  'meta-removido': 'meta',
  recuperacao: 'recuperacao',
  removido: 'equipe',
  papel: 'equipe',
  senha: 'minha-conta',
  'duas-etapas-ativada': 'minha-conta',
  'duas-etapas-desativada': 'minha-conta',
};

/** The CSRF field every form of the page sends (checked by the dashboard's guard). */
export const Csrf = { _csrf: Type.Optional(Type.String()) };

export interface SettingsAnswers {
  /** The page, with what a POST adds to it; `auditBefore` pages the audit log. */
  show(
    request: FastifyRequest,
    reply: FastifyReply,
    state: SettingsState,
    status?: number,
    auditBefore?: string,
  ): Promise<FastifyReply>;
  /** The page again, with `message` on `section` and the typed `values` shown back. */
  refuse(
    request: FastifyRequest,
    reply: FastifyReply,
    section: SettingsSection,
    message: string,
    values?: Record<string, string>,
    status?: number,
  ): Promise<FastifyReply>;
  /** Back to the page after a change, at the section's `anchor`, saying `notice`. */
  done(reply: FastifyReply, notice: NoticeKey, anchor: string): FastifyReply;
}

/** The routes of one section of the page, added to the settings screen by its index. */
export type SectionRoutes = (
  app: DashboardApp,
  services: DashboardServices,
  answers: SettingsAnswers,
) => void;

export function settingsAnswers(app: DashboardApp, services: DashboardServices): SettingsAnswers {
  const show: SettingsAnswers['show'] = async (request, reply, state, status = 200, auditBefore) => {
    const session = member(request);
    const data = await loadSettings(app.db, request, auditBefore);
    return sendPage(request, reply, services, {
      title: 'Configurações',
      nav: 'settings',
      status,
      body: (
        <SettingsPage data={data} state={state} owner={session.role === 'owner'} selfId={session.userId} />
      ),
    });
  };
  return {
    show,
    refuse: (request, reply, section, message, values = {}, status = 400) =>
      show(request, reply, { errors: { [section]: message }, values }, status),
    done: (reply, notice, anchor) => reply.redirect(`${SETTINGS_PATH}?aviso=${notice}#${anchor}`, 303),
  };
}
