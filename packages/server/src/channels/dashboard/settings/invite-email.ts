import escapeHtml from 'escape-html';
import { randomBase62 } from '../../../platform/values/ids.js';
import type { SmtpSettings } from '../../../platform/config/config.js';
import type { OutgoingEmail } from '../../../platform/mail/smtp-mailer.js';
import { ROLE_LABELS } from '../../../domain/accounts/roles.js';
import type { Role } from '../../../domain/accounts/roles.js';

/** The e-mail carrying an invite link, when SMTP is configured: to create a password, or to sign in and accept. */
export function inviteEmail(
  smtp: SmtpSettings,
  input: { email: string; storeName: string; role: Role; url: string; setsPassword: boolean },
): OutgoingEmail {
  const subject = `Convite para o painel da loja ${input.storeName}`;
  // A link that does not set the password is accepted by the person signed in with their own.
  const how = input.setsPassword
    ? 'Abra o link abaixo para criar sua senha (ele vale 72 horas e serve uma vez só):'
    : 'Entre no painel com a sua senha de sempre e abra o link abaixo para aceitar (ele vale 72 horas e serve uma vez só):';
  const lines = [
    'Olá!',
    '',
    `Você foi convidado para o painel da loja ${input.storeName} como ${ROLE_LABELS[input.role].toLowerCase()}.`,
    how,
    '',
    input.url,
  ];
  const html = [
    `<p>Olá!</p>`,
    `<p>Você foi convidado para o painel da loja <strong>${escapeHtml(input.storeName)}</strong> como ${escapeHtml(ROLE_LABELS[input.role].toLowerCase())}.</p>`,
    `<p>${escapeHtml(how)}</p>`,
    `<p><a href="${escapeHtml(input.url)}">${escapeHtml(input.url)}</a></p>`,
  ].join('\n');
  return {
    to: { name: '', address: input.email },
    subject,
    text: lines.join('\n'),
    html,
    messageId: `<invite-${randomBase62(16)}@${smtp.fromDomain}>`,
  };
}
