// Runs inside the temporary folder where `@vendure/core` was installed (bench/peer/vendure.mjs copies
// it there, so its imports resolve to that install). `populate` creates the schema and the minimal
// initial data; `serve` starts Vendure on PORT. The configuration is written by hand for the bench.
import { createRequire } from 'node:module';
import { bootstrap, dummyPaymentHandler, LanguageCode } from '@vendure/core';

// Vendure writes working files (.vendure/) beside it: in the temporary folder, not the repository.
process.chdir(new URL('.', import.meta.url).pathname);

// `@vendure/core/cli` is a CommonJS folder import, which ESM cannot name directly.
const { populate } = createRequire(import.meta.url)('@vendure/core/cli');

const [, , command] = process.argv;

/** @type {import('@vendure/core').VendureConfig} */
const config = {
  apiOptions: {
    hostname: '127.0.0.1',
    port: Number(process.env.PORT ?? 3000),
    adminApiPath: 'admin-api',
    shopApiPath: 'shop-api',
  },
  authOptions: {
    tokenMethod: 'bearer',
    requireVerification: false,
    // NODE_ENV=production: Vendure refuses to run with its default superadmin password.
    superadminCredentials: { identifier: 'superadmin', password: process.env.VENDURE_SUPERADMIN_PASSWORD },
  },
  dbConnectionOptions: {
    type: 'better-sqlite3',
    database: process.env.VENDURE_DB_PATH,
    synchronize: true,
    logging: false,
  },
  paymentOptions: { paymentMethodHandlers: [dummyPaymentHandler] },
  plugins: [],
};

/** Just enough for prices to be readable: a zone, a country, a tax rate, shipping and payment. */
const initialData = {
  defaultLanguage: LanguageCode.en,
  defaultZone: 'Americas',
  roles: [],
  taxRates: [{ name: 'Isento', percentage: 0 }],
  shippingMethods: [{ name: 'Digital', price: 0 }],
  paymentMethods: [
    {
      name: 'Dummy',
      handler: { code: dummyPaymentHandler.code, arguments: [{ name: 'automaticSettle', value: 'true' }] },
    },
  ],
  collections: [],
  countries: [{ name: 'Brasil', code: 'BR', zone: 'Americas' }],
};

if (command === 'populate') {
  const app = await populate(
    () => bootstrap({ ...config, apiOptions: { ...config.apiOptions, port: 0 } }),
    initialData,
  );
  await app.close();
  process.exit(0);
} else {
  await bootstrap(config);
}
