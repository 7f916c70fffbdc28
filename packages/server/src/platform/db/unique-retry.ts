import { isUniqueViolation } from './database.js';

/**
 * Runs `attempt` again when it fails on a unique index: a generated value (a code, a slug) collided
 * or a concurrent writer took it first. `attempt` must be a whole transaction, so a retry starts
 * clean (on PostgreSQL a failed statement aborts its transaction). Other errors, and the last
 * collision, are thrown as they are.
 */
export async function retryOnUniqueViolation<T>(attempts: number, attempt: () => Promise<T>): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (tried >= attempts || !isUniqueViolation(error)) throw error;
    }
  }
}
