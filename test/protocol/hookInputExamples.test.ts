/**
 * The README's examples of what Claude Code sends the hook (docs/examples/hook-input.*.json) are what the hook reads:
 * each one passes the hook's own zod schema (src/cli/agentCommands.ts) and its first stage's parser (hookFast.ts),
 * and piped into the real built CLI (`node dist/cli.js hook claude-code`, as the installed hook runs it) it gets the
 * answer the README promises: SessionStart prints the block, the next UserPromptSubmit of that session prints
 * nothing, and a UserPromptSubmit of a session that never had the block prints it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HookInputSchema } from '../../src/cli/agentCommands';
import { parseHookInput } from '../../src/cli/hookFast';
import { CLI } from '../helpers/stdioServer';
import { tempWorkspace } from '../helpers/tempWorkspace';

const EXAMPLES = resolve(__dirname, '../../docs/examples');
const START = 'hook-input.session-start.json';
const PROMPT = 'hook-input.user-prompt-submit.json';

function example(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(EXAMPLES, name), 'utf8')) as Record<string, unknown>;
}

test('every hook input example in docs/examples passes the hook schema and the first stage parser', () => {
  const names = readdirSync(EXAMPLES).filter((n) => /^hook-input\..+\.json$/.test(n)).sort();
  assert.deepEqual(names, [START, PROMPT]);
  for (const name of names) {
    const raw = readFileSync(join(EXAMPLES, name), 'utf8');
    const parsed = HookInputSchema.safeParse(JSON.parse(raw));
    assert.ok(parsed.success, `${name}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`);
    assert.ok(['SessionStart', 'UserPromptSubmit'].includes(parsed.data.hook_event_name), name);
    assert.ok(parsed.data.cwd, `${name} names the project folder (cwd)`);
    const fast = parseHookInput(raw);
    assert.deepEqual(fast, { sessionId: parsed.data.session_id, event: parsed.data.hook_event_name, cwd: parsed.data.cwd });
  }
  assert.equal(example(START).source, 'startup');
  assert.equal(typeof example(PROMPT).prompt, 'string');
  assert.equal(example(START).session_id, example(PROMPT).session_id, 'one session: the start, then a prompt');
});

test('piped into node dist/cli.js hook claude-code, the examples get the block once, then nothing', { timeout: 60_000 }, () => {
  const { workspace, storage } = tempWorkspace('sk-hook-examples-', { '.knowledge/notes/setup.md': '# Setup\nUse pnpm, not npm. The API lives in packages/api.\n' });
  const env = { ...process.env, XDG_STATE_HOME: join(workspace, '..', 'state'), SESSION_KNOWLEDGE_STATE_DIR: '', SESSION_KNOWLEDGE_MEMORY_ENABLE: '', SESSION_KNOWLEDGE_STORAGE: storage, HOME: join(workspace, '..', 'home') };
  const run = (args: string[], input = '') => spawnSync(process.execPath, [CLI, ...args], { cwd: workspace, env, input, encoding: 'utf8', timeout: 30_000 });
  // Claude Code sends its project folder as cwd: the examples' /home/you/project is this temp workspace here.
  const hook = (name: string, session?: string) => run(['hook', 'claude-code'], JSON.stringify({ ...example(name), cwd: workspace, ...(session ? { session_id: session } : {}) }));

  assert.equal(run(['pin', '.knowledge/notes/setup.md']).status, 0);
  const start = hook(START);
  assert.equal(start.status, 0, start.stderr);
  assert.equal(start.stderr, '');
  assert.match(start.stdout, /<<<BEGIN_UNTRUSTED_KNOWLEDGE [0-9a-f]{24}>>>/);
  assert.match(start.stdout, /Use pnpm, not npm/);

  const prompt = hook(PROMPT);
  assert.equal(prompt.status, 0, prompt.stderr);
  assert.equal(prompt.stderr, '');
  assert.equal(prompt.stdout, '', 'the session had the block at its start: the prompt owes nothing');

  const other = hook(PROMPT, 'another-session');
  assert.equal(other.status, 0, other.stderr);
  assert.match(other.stdout, /Use pnpm, not npm/, 'a session that never had the block gets it with its first prompt');
});
