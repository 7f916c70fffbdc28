import { createContext } from 'preact';
import { DEFAULT_TIMEZONE } from '../../../platform/values/local-date.js';
import type { Role } from '../../../domain/accounts/roles.js';

/** What every dashboard component may need about the request it renders for. */
export interface PageContext {
  /** The session's CSRF token, put in every form; null on the login and invite pages. */
  csrf: string | null;
  nonce: string;
  role: Role | null;
  /** The store's time zone: every instant on a page is shown in it (São Paulo's outside a store). */
  timeZone: string;
}

export const PageContextValue = createContext<PageContext>({
  csrf: null,
  nonce: '',
  role: null,
  timeZone: DEFAULT_TIMEZONE,
});
