import escapeHtml from 'escape-html';
import { randomBase62 } from '../../../platform/values/ids.js';
import type { SmtpSettings } from '../../../platform/config/config.js';
import type { OutgoingEmail } from '../../../platform/mail/smtp-mailer.js';

/** The e-mail carrying a password reset link, to the account's own address only. */
export function passwordResetEmail(smtp: SmtpSettings, input: { email: string; url: string }): OutgoingEmail {
  const lines = [
    'Olá!',
    '',
    'Alguém (esperamos que você) pediu para redefinir a senha do painel Storefront desta conta.',
    'Abra o link abaixo para criar uma nova senha (ele vale 1 hora e serve uma vez só):',
    '',
    input.url,
    '',
    'Se não foi você, ignore este e-mail: sua senha continua a mesma.',
  ];
  const html = [
    '<p>Olá!</p>',
    '<p>Alguém (esperamos que você) pediu para redefinir a senha do painel Storefront desta conta.</p>',
    '<p>Abra o link abaixo para criar uma nova senha (ele vale 1 hora e serve uma vez só):</p>',
    `<p><a href="${escapeHtml(input.url)}">${escapeHtml(input.url)}</a></p>`,
    '<p>Se não foi você, ignore este e-mail: sua senha continua a mesma.</p>',
  ].join('\n');
  return {
    to: { name: '', address: input.email },
    subject: 'Redefinir sua senha do painel',
    text: lines.join('\n'),
    html,
    messageId: `<password-reset-${randomBase62(16)}@${smtp.fromDomain}>`,
  };
}
