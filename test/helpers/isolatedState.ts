/**
 * Every test process keeps the per-user state (agent sessions, the person's own record of reviews and approvals:
 * `review/userTrust.ts`) in a temp folder of its own, never in the real `~/.local/state`: imported for its effect by
 * the helpers every test uses (and set by `scripts/test.mjs` for a whole run). A test that names its own
 * `SESSION_KNOWLEDGE_STATE_DIR` keeps it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (!process.env.SESSION_KNOWLEDGE_STATE_DIR) process.env.SESSION_KNOWLEDGE_STATE_DIR = mkdtempSync(join(tmpdir(), 'sk-state-'));

export const TEST_STATE_DIR: string = process.env.SESSION_KNOWLEDGE_STATE_DIR;
