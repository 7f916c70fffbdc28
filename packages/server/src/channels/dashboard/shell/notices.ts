/**
 * The notice a redirect's `?aviso=` names among a page's own. Own keys only: `key in notices` would
 * also take inherited names (`toString`, `constructor`) and show a function as the notice.
 */
export function noticeOf<N extends Record<string, unknown>>(
  notices: N,
  key: string | null | undefined,
): N[keyof N] | null {
  return key && Object.hasOwn(notices, key) ? notices[key as keyof N] : null;
}
