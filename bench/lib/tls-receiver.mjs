// The receiver child of a bench that delivers over TLS (bench/meta-conversions.mjs: the Graph API,
// bench/delivery-email.mjs: SMTP): the bench forks its own script with a flag, handing it a fresh
// self-signed certificate for localhost in BENCH_TLS, and talks to it by IPC messages.
import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { nextMessage } from './child-process.mjs';

/**
 * Forks `script` with `flag`; the child reads BENCH_TLS ({ key, cert }), listens on 127.0.0.1 and
 * sends `{ port }`, then answers 'stats' with at least `distinct` (messages received once each).
 * `cert` is the CA the bench's client trusts; `ask(what)` one IPC round trip; `waitForDistinct(n)`
 * polls 'stats' every `pollMs` until n distinct messages arrived.
 */
export async function forkTlsReceiver({ script, flag, pollMs }) {
  const selfsigned = (await import('selfsigned')).default;
  const pems = selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    days: 1,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const child = fork(script, [flag], {
    env: { ...process.env, BENCH_TLS: JSON.stringify({ key: pems.private, cert: pems.cert }) },
  });
  const { port } = await nextMessage(child);
  const ask = async (what) => {
    child.send(what);
    return nextMessage(child);
  };
  const waitForDistinct = async (count) => {
    let stats;
    do {
      await sleep(pollMs);
      stats = await ask('stats');
    } while (stats.distinct < count);
    return stats;
  };
  return { port, cert: pems.cert, ask, waitForDistinct, kill: () => child.kill() };
}
