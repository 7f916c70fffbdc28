/** STOREFRONT_TEST_MAIL_ALLOW: who else (besides the store's team) a page-simulated test sale may e-mail. */
export interface TestMailAllow {
  /** Whole addresses, lower-cased. */
  addresses: ReadonlySet<string>;
  /** Domains written `@domain`, lower-cased, without the `@`: every address of exactly that domain. */
  domains: ReadonlySet<string>;
}

export const NO_TEST_MAIL_ALLOW: TestMailAllow = { addresses: new Set(), domains: new Set() };

const ADDRESS = /^[^@\s,]+@([^@\s,]+\.[^@\s,]+)$/;
const DOMAIN = /^@([^@\s,]+\.[^@\s,]+)$/;

/** Parses the comma-separated list; throws with the offending entry. */
export function parseTestMailAllow(raw: string | undefined): TestMailAllow {
  if (raw === undefined || raw.trim() === '') return NO_TEST_MAIL_ALLOW;
  const addresses = new Set<string>();
  const domains = new Set<string>();
  for (const part of raw.split(',')) {
    const entry = part.trim().toLowerCase();
    const domain = DOMAIN.exec(entry)?.[1];
    if (domain !== undefined) domains.add(domain);
    else if (ADDRESS.test(entry)) addresses.add(entry);
    else {
      throw new Error(
        `"${part.trim()}" is neither an e-mail address (ana@loja.com.br) nor a domain written @loja.com.br`,
      );
    }
  }
  return { addresses, domains };
}
