// A TCP proxy on 127.0.0.1 that can cut, stall and restore the connections between a service and a
// dependency (PostgreSQL, Redis): what a restart, a network partition or a hung server looks like
// from the service's side. Used by the outage tests and by bench/outage.mjs.
//
//   const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
//   ... point the service at 127.0.0.1:proxy.port ...
//   proxy.cut();      // every connection reset now; new ones reset on arrival (a restart, a crash)
//   proxy.stall();    // connections stay open but nothing passes either way (a partition, a hung server)
//   proxy.restore();  // traffic flows again; data held during a stall is delivered
//   await proxy.close();
import { createServer, connect } from 'node:net';

/** @param {{ host: string, port: number }} target */
export async function startTcpProxy(target) {
  /** @type {'open' | 'cut' | 'stall'} */
  let mode = 'open';
  /** @type {Set<{ client: import('node:net').Socket, upstream: import('node:net').Socket | null, held: Array<[import('node:net').Socket | null, Buffer]> }>} */
  const pairs = new Set();

  function openUpstream(pair) {
    const upstream = connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on('data', (chunk) => forward(pair, pair.client, chunk));
    upstream.on('error', () => pair.client.destroy());
    upstream.on('close', () => pair.client.destroy());
  }

  /** Passes a chunk on, or keeps it while stalled; `to` null means "upstream, once it exists". */
  function forward(pair, to, chunk) {
    if (mode === 'stall' || (to === null && !pair.upstream)) pair.held.push([to, chunk]);
    else (to ?? pair.upstream).write(chunk);
  }

  const server = createServer((client) => {
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const pair = { client, upstream: null, held: [] };
    pairs.add(pair);
    client.on('data', (chunk) => forward(pair, null, chunk));
    client.on('error', () => pair.upstream?.destroy());
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    // A stalled dependency accepts connections and then says nothing.
    if (mode === 'open') openUpstream(pair);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    host: '127.0.0.1',
    port: server.address().port,
    get connections() {
      return pairs.size;
    },
    cut() {
      mode = 'cut';
      for (const pair of pairs) {
        pair.client.resetAndDestroy();
        pair.upstream?.resetAndDestroy();
      }
      pairs.clear();
    },
    stall() {
      mode = 'stall';
    },
    restore() {
      mode = 'open';
      for (const pair of pairs) {
        if (!pair.upstream) openUpstream(pair);
        for (const [to, chunk] of pair.held.splice(0)) (to ?? pair.upstream).write(chunk);
      }
    },
    async close() {
      this.cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
