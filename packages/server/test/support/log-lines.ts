import { Writable } from 'node:stream';

/** A pino destination that parses each JSON line the service logs into `lines`, to assert on. */
export function logLinesStream(lines: Record<string, unknown>[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
}
