import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSession, endSession, SESSION_ABSOLUTE_MS } from '../../../domain/accounts/sessions.js';
import type { SessionStage } from '../../../domain/accounts/sessions.js';
import { sessionCookie } from '../shell/dashboard-plugin.js';

/**
 * Starts a session (always a new id: a cookie set before login is never promoted) on the person's
 * first store, ends the one the browser had, and sets the cookie.
 */
export async function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  storeId: string,
  stage: SessionStage,
): Promise<void> {
  const { db, config } = request.server;
  if (request.dashboard.session) await endSession(db, request.dashboard.session.idHash);
  const token = await createSession(db, { userId, storeId, stage });
  reply.header('set-cookie', sessionCookie(config.publicUrl, token, SESSION_ABSOLUTE_MS / 1000));
}
