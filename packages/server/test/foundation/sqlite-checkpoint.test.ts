import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WAL_CHECKPOINT_PAGES, openDatabase } from '../../src/platform/db/database.js';
import { startBackgroundCheckpoints } from '../../src/platform/db/sqlite-background-checkpoints.js';
import type { Db } from '../../src/platform/db/database.js';

/**
 * The most frames the WAL file has held: its size, a 32-byte header then 24 + 4,096 bytes a frame.
 * After a checkpoint the next writer starts again from the first frame, so the file stops growing.
 * (Reading it does not checkpoint, as `pragma wal_checkpoint` would.)
 */
const walFramesHeld = (path: string) => Math.floor((statSync(`${path}-wal`).size - 32) / (24 + 4096));

/** Commits `count` transactions of one 3 KB row each: ~3 WAL frames each (the row's page, the tree's). */
async function commitRows(db: Db, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await db.kysely.transaction().execute(async (trx) => {
      await sql`insert into pages (body) values (randomblob(3000))`.execute(trx);
    });
  }
}

const MB = 1024 * 1024;

describe('SQLite checkpoints', () => {
  let dir: string;
  let path: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sf-checkpoint-'));
    path = join(dir, 'store.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function open(options: { checkpointInBackground?: boolean } = {}): Promise<Db> {
    const db = openDatabase(`sqlite:${path}`, options);
    await sql`create table pages (body blob not null)`.execute(db.kysely);
    return db;
  }

  it('a commit copies the WAL back once past 4,000 pages, not 1,000', async () => {
    expect(WAL_CHECKPOINT_PAGES).toBe(4000);
    const db = await open();
    try {
      await commitRows(db, 1000);
      // ~3,000 frames, none copied back yet: at SQLite's default the file would have stopped near
      // 1,000, and the database file would hold the rows' ~3 MB.
      const held = walFramesHeld(path);
      expect(held).toBeGreaterThan(2000);
      expect(held).toBeLessThan(WAL_CHECKPOINT_PAGES);
      expect(statSync(path).size).toBeLessThan(MB);
      await commitRows(db, 1000);
      // ~6,000 frames written in all: the commit past 4,000 checkpointed and the WAL started over.
      expect(walFramesHeld(path)).toBeGreaterThanOrEqual(WAL_CHECKPOINT_PAGES);
      expect(walFramesHeld(path)).toBeLessThan(WAL_CHECKPOINT_PAGES + 10);
      expect(statSync(path).size).toBeGreaterThan(3 * MB);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('the service copies it back from a thread, without a commit waiting for it', async () => {
    const db = await open({ checkpointInBackground: true });
    try {
      await commitRows(db, 1000);
      // Under the commits' 4,000-page threshold: only the thread can have copied the rows back.
      const until = Date.now() + 5000;
      while (statSync(path).size < 2 * MB && Date.now() < until) await sleep(50);
      expect(statSync(path).size).toBeGreaterThan(2 * MB);
    } finally {
      await db.close();
    }
    // The thread's connection closed first: the service's, closing last, removed the WAL.
    expect(existsSync(`${path}-wal`)).toBe(false);
  }, 60_000);

  it('a thread that cannot run says so once and hands the copying back to the commits', async () => {
    const warnings: string[] = [];
    let handedBack: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (handedBack = resolve));
    const checkpoints = startBackgroundCheckpoints(
      join(dir, 'no-such-directory', 'store.sqlite'),
      { warn: (_object, message) => warnings.push(message) },
      () => handedBack(),
    );
    await stopped;
    expect(warnings).toEqual(['background WAL checkpoints stopped; commits copy the WAL back themselves']);
    await checkpoints.stop();
  }, 60_000);
});
