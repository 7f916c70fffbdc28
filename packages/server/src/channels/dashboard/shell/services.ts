import type { Redis } from 'ioredis';
import type { SecretBox } from '../../../platform/values/secret-box.js';
import type { Mailer } from '../../../platform/mail/smtp-mailer.js';
import type { LoginThrottle } from '../../../domain/accounts/login-throttle.js';

/** What the dashboard's pages share, made once when the dashboard is registered. */
export interface DashboardServices {
  /** URL of the dashboard's stylesheet. */
  css: string;
  /** URL of the script of every page: confirm dialogs, focus on an action's answer, copy buttons. */
  script: string;
  /** Seals TOTP secrets (the service's secret box). */
  secretBox: SecretBox;
  throttle: LoginThrottle;
  /** Shares the dashboard's rate limits between processes when configured; null: each process counts alone. */
  redis: Redis | null;
  /** Sends invites when SMTP is configured; null otherwise (the link is shown to copy). */
  mailer: Mailer | null;
}
