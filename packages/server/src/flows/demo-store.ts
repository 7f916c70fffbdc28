import type { Kysely } from 'kysely';
import { createApiKey } from '../platform/api-keys/api-keys.js';
import { SCOPES } from '../platform/api-keys/scopes.js';
import { INVITE_PATH } from '../domain/accounts/invites.js';
import { addMember } from '../domain/accounts/team.js';
import { claimOnce } from '../platform/db/bootstrap-claims.js';
import type { Database } from '../platform/db/schema.js';
import { createProduct } from '../domain/catalogue/product-service.js';
import { countStores } from '../domain/stores/stores.js';
import { createStore } from './create-store.js';

/** The demo store's name: its pages, e-mails and Pix code are in Portuguese, and so is it. */
export const DEMO_STORE_NAME = 'Loja de demonstração';

/** The Demo store's one product: enough to open its purchase page and buy it in test mode. */
const DEMO_PRODUCT = {
  nome: 'Curso de demonstração',
  descricao: 'Um produto de exemplo para você testar a página de compra em modo de teste.',
  preco: 19.9,
  link_acesso: 'https://example.com/acesso',
};

/** The Demo store's owner: the dashboard login its invite sets a password for. */
export const DEMO_OWNER_EMAIL = 'dono@example.com';

export interface DemoStore {
  storeId: string;
  key: string;
  pagePath: string;
  /** `/dashboard/convite/<token>`: the owner's invite (72 hours, used once). */
  invitePath: string;
}

/**
 * On a database with no store, the first `serve` creates a Demo store with one demo product, a test
 * key holding every scope and an owner invite for the dashboard, so a newcomer can open a purchase
 * page, make a first request and sign in at once. The key and the invite are returned to be printed
 * once, with the path of the product's page.
 */
export async function ensureDemoStore(db: Kysely<Database>): Promise<DemoStore | null> {
  if ((await countStores(db)) > 0) return null;
  // Several processes starting at once on an empty database all count zero: one claim wins.
  if (!(await claimOnce(db, 'demo_store'))) return null;
  const store = await createStore(db, { name: DEMO_STORE_NAME });
  const product = await createProduct(db, { storeId: store.id, livemode: false }, DEMO_PRODUCT);
  const key = await createApiKey(db, { storeId: store.id, mode: 'test', scopes: [...SCOPES] });
  const owner = await addMember(db, {
    storeId: store.id,
    email: DEMO_OWNER_EMAIL,
    role: 'owner',
    invite: true,
  });
  return {
    storeId: store.id,
    key: key.key,
    pagePath: `/p/${store.handle}/${product.slug}`,
    invitePath: `${INVITE_PATH}/${owner.inviteToken!}`,
  };
}
