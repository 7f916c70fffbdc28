/**
 * A PSP address the operator (or a store's owner) typed: https only, no credentials nor fragment in
 * the URL, no trailing slash. It is configuration, so the webhook target rules do not apply; the
 * outbound address policy still does when it is reached. Throws an Error naming the option.
 */
export function operatorHttpsUrl(raw: string, option: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${option} is not a URL: "${raw}"`);
  }
  if (url.protocol !== 'https:')
    throw new Error(`${option} must be https:// (a PSP is only reached over TLS), got "${raw}"`);
  if (url.username || url.password || url.hash)
    throw new Error(`${option} must not carry credentials or a fragment`);
  return url.toString().replace(/\/+$/, '');
}
