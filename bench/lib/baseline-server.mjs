// The bare baseline: the same Fastify as the server, no auth, no database, no validation, no
// logging. `GET|POST /<status>/<bytes>` answers a JSON object that serializes to exactly <bytes>.
import { importServerDependency } from './paths.mjs';

const Fastify = await importServerDependency('fastify');
const app = Fastify({ logger: false });
const bodies = new Map();

/** `{"data":"xxx…"}` of exactly `bytes` bytes of JSON (at least the 11 bytes of the wrapper). */
function bodyOf(bytes) {
  let body = bodies.get(bytes);
  if (!body) {
    body = { data: 'x'.repeat(Math.max(0, bytes - '{"data":""}'.length)) };
    bodies.set(bytes, body);
  }
  return body;
}

const handler = async (request, reply) => {
  reply.code(Number(request.params.status));
  return bodyOf(Number(request.params.bytes));
};
app.get('/:status/:bytes', handler);
app.post('/:status/:bytes', handler);
app.get('/healthz', async () => ({ ok: true }));

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
