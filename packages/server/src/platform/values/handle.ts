import { nthCandidate, slugOf } from './slug.js';

export const HANDLE_MIN_LENGTH = 3;
export const HANDLE_MAX_LENGTH = 40;
/** A store's public handle, the first segment of its purchase pages' paths: `a-z0-9` and dashes. */
export const HANDLE_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,38})[a-z0-9]$/;

/** What is wrong with a handle (each caller words it), or null when it is well formed. */
export function handleFault(handle: string): 'length' | 'characters' | null {
  if (handle.length < HANDLE_MIN_LENGTH || handle.length > HANDLE_MAX_LENGTH) return 'length';
  return HANDLE_PATTERN.test(handle) ? null : 'characters';
}

/** Why a handle is refused, in the CLI's words, or null when it is well formed. */
export function handleProblem(handle: string): string | null {
  const fault = handleFault(handle);
  if (fault === 'length') {
    return `--handle must be ${HANDLE_MIN_LENGTH} to ${HANDLE_MAX_LENGTH} characters, got ${handle.length}`;
  }
  if (fault === 'characters') {
    return '--handle may hold only a-z, 0-9 and dashes, and must start and end with a letter or digit';
  }
  return null;
}

/** The handle a store name suggests: "Loja da Ana" → `loja-da-ana`, padded when too short. */
export function handleFromName(name: string): string {
  // A name with no letter or digit at all (only emoji, say) is just a store.
  if (!/[a-z0-9]/i.test(name.normalize('NFD'))) return 'loja';
  const base = slugOf(name, HANDLE_MAX_LENGTH);
  return base.length >= HANDLE_MIN_LENGTH ? base : `loja-${base}`;
}

/** The n-th candidate: the base, then `base-2`, `base-3`…, cut to fit the limit. */
export const handleCandidate = (base: string, n: number): string => nthCandidate(base, n, HANDLE_MAX_LENGTH);
