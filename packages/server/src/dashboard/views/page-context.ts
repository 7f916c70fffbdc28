import { createContext } from 'preact';
import type { Role } from '../accounts/roles.js';

/** What every dashboard component may need about the request it renders for. */
export interface PageContext {
  /** The session's CSRF token, put in every form; null on the login and invite pages. */
  csrf: string | null;
  nonce: string;
  role: Role | null;
}

export const PageContextValue = createContext<PageContext>({ csrf: null, nonce: '', role: null });
