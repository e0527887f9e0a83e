/**
 * Migration from version 1 (one `sessions.json` holding every session), on a store's first open, under the index's
 * lock: the old file is copied to `sessions.json.v1-backup` (once), every session is written to its own file, and only
 * then is the index rewritten without them. A crash at any point leaves the old file in place (the session files
 * written so far are the same sessions, written again by the next open), so the next open completes it; nothing is
 * lost. Sessions found in a version-2 index (an older window wrote there) are moved out the same way.
 */
import { promises as fs } from 'node:fs';
import { basename } from 'node:path';
import { JsonDocument } from './jsonDocument';
import { withFileLock, writeFileAtomic } from './atomicFile';
import { entryOf, type Change } from './sessionIndexRows';
import { lastActivity, serializeSession, statKeyOf, type SessionFiles } from './sessionFiles';
import { SESSIONS_SCHEMA_VERSION, SessionsDocSchema, legacySessionsDefaults, sessionsMigrations, type SessionMeta, type SessionsDoc } from './storeSchemas';
import type { StoreProblem } from '../../../shared/schemas';

export interface SplitDeps {
  /** `sessions.json`. */
  indexPath: string;
  files: SessionFiles;
  /** Appends a line to the sessions index's journal. */
  record: (change: Change) => void;
  onProblem?: (problem: StoreProblem) => void;
  onMigrateProgress?: (written: number, total: number) => void;
}

/**
 * Moves sessions kept in `sessions.json` (version 1, or left there by an older window) into their own files. Answers
 * the stat of `sessions.json` it checked ('missing' without one), and whether a malformed one was set aside.
 */
export async function splitSessionsFile(deps: SplitDeps): Promise<{ checkedAt: string; setAside: boolean }> {
  const path = deps.indexPath;
  const seen = statKeyOf(path);
  if (seen === null) return { checkedAt: 'missing', setAside: false };
  // A cheap look first: the common case (already split) takes no lock.
  const peek = await fs.readFile(path, 'utf8').catch(() => null);
  if (peek === null || !needsMigration(peek)) return { checkedAt: seen, setAside: false };
  let setAside = false;
  await withFileLock(path, async () => {
    // The old reader: validates (and migrates version 0), sets a malformed file aside and reports it.
    const legacy = new JsonDocument<SessionsDoc>({
      source: 'sessions',
      path,
      schema: SessionsDocSchema,
      currentVersion: 1,
      defaults: legacySessionsDefaults,
      migrations: { 0: sessionsMigrations[0]! },
      onProblem: deps.onProblem,
    });
    const text = await fs.readFile(path, 'utf8').catch(() => null);
    if (text === null || !needsMigration(text)) return; // another window finished it meanwhile
    const doc = await legacy.load();
    if (legacy.health().state === 'set-aside') {
      setAside = true; // reported by the legacy reader; the index starts fresh
      return;
    }
    const backup = `${path}.v1-backup`;
    if (statKeyOf(backup) === null) await writeFileAtomic(backup, text);
    const entries = Object.entries(doc.sessions);
    await fs.mkdir(deps.files.dir, { recursive: true });
    let written = 0;
    for (const [key, session] of entries) {
      const target = deps.files.pathOf(key);
      // A session file newer than the one in the index (written after an earlier split) wins. Under the session's lock, with a line in the index's journal: a store already running sees the split
      // session as it sees any other write (its index catches up from the journal).
      await withFileLock(
        target,
        async () => {
          const existing = await deps.files.read(target, key).catch(() => undefined);
          if (!existing || lastActivity(existing) < lastActivity(session)) {
            const split = { ...session, key } as SessionMeta;
            await writeFileAtomic(target, serializeSession(split));
            deps.record({ put: entryOf(split, basename(target), statKeyOf(target), lastActivity(split)) });
          }
        },
        { sweepTemps: false, link: true },
      );
      written += 1;
      deps.onMigrateProgress?.(written, entries.length);
    }
    const rest: Record<string, unknown> = { ...doc };
    delete rest.sessions;
    const next = { ...rest, schemaVersion: Math.max(SESSIONS_SCHEMA_VERSION, doc.schemaVersion) };
    await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
  });
  return { checkedAt: statKeyOf(path) ?? 'missing', setAside };
}

/** Whether `sessions.json`'s text still holds sessions (version 0/1, or sessions an older window wrote into version 2). */
function needsMigration(text: string): boolean {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return true; // malformed: the legacy reader sets it aside and reports it
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return true;
  const doc = raw as Record<string, unknown>;
  if (typeof doc.schemaVersion !== 'number' || doc.schemaVersion < 2) return true;
  return typeof doc.sessions === 'object' && doc.sessions !== null && Object.keys(doc.sessions).length > 0;
}
