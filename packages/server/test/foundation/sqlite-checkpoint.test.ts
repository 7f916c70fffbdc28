import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WAL_CHECKPOINT_PAGES, openDatabase } from '../../src/platform/db/database.js';
import type { Db } from '../../src/platform/db/database.js';

/**
 * The most frames the WAL file has held: its size, a 32-byte header then 24 + 4,096 bytes a frame.
 * After a checkpoint the next writer starts again from the first frame, so the file stops growing.
 * (Reading it does not checkpoint, as `pragma wal_checkpoint` would.)
 */
const walFramesHeld = (path: string) => Math.floor((statSync(`${path}-wal`).size - 32) / (24 + 4096));

describe('SQLite: the WAL is copied back every 4,000 pages, not every 1,000', () => {
  let dir: string;
  let path: string;
  let db: Db;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-checkpoint-'));
    path = join(dir, 'store.sqlite');
    db = openDatabase(`sqlite:${path}`);
    await sql`create table pages (body blob not null)`.execute(db.kysely);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Commits `count` transactions of one 3 KB row each: ~3 WAL frames each (the row's page, the tree's). */
  async function commitRows(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      await db.kysely.transaction().execute(async (trx) => {
        await sql`insert into pages (body) values (randomblob(3000))`.execute(trx);
      });
    }
  }

  it('keeps more than 1,000 pages in the WAL, and checkpoints once past 4,000', async () => {
    expect(WAL_CHECKPOINT_PAGES).toBe(4000);
    await commitRows(1000);
    // ~3,000 frames, none copied back yet: at SQLite's default the file would have stopped near 1,000.
    const held = walFramesHeld(path);
    expect(held).toBeGreaterThan(2000);
    expect(held).toBeLessThan(WAL_CHECKPOINT_PAGES);
    await commitRows(1000);
    // ~6,000 frames written in all: the commit past 4,000 checkpointed and the WAL started over.
    expect(walFramesHeld(path)).toBeGreaterThanOrEqual(WAL_CHECKPOINT_PAGES);
    expect(walFramesHeld(path)).toBeLessThan(WAL_CHECKPOINT_PAGES + 10);
  }, 60_000);
});
