import type { DashboardScreen } from './shell/page.js';
import { cardsScreen } from './cards/cards-routes.js';
import { checkoutsScreen } from './checkouts/checkouts-routes.js';
import { couponsScreen } from './coupons/coupons-routes.js';
import { developersScreen } from './developers/developers-routes.js';
import { homeScreen } from './home/home-routes.js';
import { inviteScreen } from './invite/invite-routes.js';
import { loginScreen } from './login/login-routes.js';
import { passwordResetScreen } from './login/password-reset-routes.js';
import { ordersScreen } from './orders/orders-routes.js';
import { productsScreen } from './products/products-routes.js';
import { pspScreen } from './psp/psp-routes.js';
import { salesScreen } from './sales/sales-routes.js';
import { sessionScreen } from './session/session-routes.js';
import { settingsScreen } from './settings/settings-routes.js';
import { subscriptionsScreen } from './subscriptions/subscriptions-routes.js';

/**
 * Every screen of the dashboard, one line each. A new screen is a folder `<name>/` beside this file
 * whose routes are made with `defineScreen` and `guard`, added here.
 */
export const DASHBOARD_SCREENS: readonly DashboardScreen[] = [
  loginScreen,
  passwordResetScreen,
  sessionScreen,
  inviteScreen,
  homeScreen,
  ordersScreen,
  subscriptionsScreen,
  checkoutsScreen,
  settingsScreen,
  developersScreen,
  pspScreen,
  cardsScreen,
  salesScreen,
  productsScreen,
  couponsScreen,
];
