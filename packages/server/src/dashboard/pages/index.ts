import type { DashboardPages } from '../page.js';
import { assinaturasPages } from './assinaturas/assinaturas-routes.js';
import { checkoutsPages } from './checkouts/checkouts-routes.js';
import { settingsPages } from './configuracoes/settings-routes.js';
import { cuponsPages } from './cupons/cupons-routes.js';
import { developersPages } from './desenvolvedores/developers-routes.js';
import { invitePages } from './convite/invite-routes.js';
import { inicioPages } from './inicio/inicio-routes.js';
import { loginPages } from './login/login-routes.js';
import { pspPages } from './psp/psp-routes.js';
import { produtosPages } from './produtos/produtos-routes.js';
import { pedidosPages } from './pedidos/pedidos-routes.js';
import { sessionPages } from './sessao/session-routes.js';
import { vendasPages } from './vendas/vendas-routes.js';

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
