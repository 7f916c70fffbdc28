import type { DashboardPages } from './shell/page.js';
import { assinaturasPages } from './subscriptions/subscriptions-routes.js';
import { checkoutsPages } from './checkouts/checkouts-routes.js';
import { settingsPages } from './settings/settings-routes.js';
import { cuponsPages } from './coupons/coupons-routes.js';
import { developersPages } from './developers/developers-routes.js';
import { invitePages } from './invite/invite-routes.js';
import { inicioPages } from './home/home-routes.js';
import { loginPages } from './login/login-routes.js';
import { pspPages } from './psp/psp-routes.js';
import { produtosPages } from './products/products-routes.js';
import { pedidosPages } from './orders/orders-routes.js';
import { sessionPages } from './session/session-routes.js';
import { vendasPages } from './sales/sales-routes.js';

/**
 * Every page folder of the dashboard, one line each. A new page is a folder under pages/<name>/
 * whose routes are made with `definePages` and `guard`, added here.
 */
export const DASHBOARD_PAGES: readonly DashboardPages[] = [
  loginPages,
  sessionPages,
  invitePages,
  inicioPages,
  pedidosPages,
  assinaturasPages,
  checkoutsPages,
  settingsPages,
  developersPages,
  pspPages,
  vendasPages,
  produtosPages,
  cuponsPages,
];
