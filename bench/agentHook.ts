/**
 * Claude Code's hook as a whole process (`node dist/cli.js hook claude-code`), the cost a developer feels on
 * every prompt, beside `node -e 0` measured in the same run (interleaved, medians). Cases: a SessionStart that
 * prints the block, and a UserPromptSubmit that owes nothing (the common case: every prompt after the first).
 * Also prints the block's size, the tokens a delivery costs. Needs the built CLI (npm run build).
 *
 *   node --import tsx bench/agentHook.ts
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const RUNS = 21;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runAgentHookBench(): Promise<void> {
  const cli = resolve(__dirname, '..', 'dist', 'cli.js');
  console.log('\n## Claude Code hook (`session-knowledge hook claude-code`), whole process\n');
  if (!existsSync(cli)) {
    console.log('(dist/cli.js not built: run npm run build first)');
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'sk-hookbench-'));
  const ws = join(root, 'ws');
  mkdirSync(join(ws, '.knowledge', 'notes'), { recursive: true });
  mkdirSync(join(ws, '.knowledge', 'plans'), { recursive: true });
  // Five notes and a plan of a typical size (~1.5 KB each), all pinned for agents.
  const para = 'Run make migrate before starting the API; the billing service reads DATABASE_URL from .env.local. Cursor pagination replaced offsets on /orders because large tenants timed out. ';
  const pins: string[] = [];
  for (let i = 0; i < 5; i++) {
    writeFileSync(join(ws, '.knowledge', 'notes', `n${i}.md`), `# Note ${i}\n\n${para.repeat(8)}\n`);
    pins.push(`.knowledge/notes/n${i}.md`);
  }
  writeFileSync(join(ws, '.knowledge', 'plans', 'p.md'), `# Plan\n\n${'- step: split the billing service\n'.repeat(30)}`);
  pins.push('.knowledge/plans/p.md');
  writeFileSync(join(ws, '.knowledge', 'pins.json'), JSON.stringify({ pins }));
  const env = { ...process.env, XDG_STATE_HOME: join(root, 'state'), SESSION_KNOWLEDGE_STORAGE: join(root, 'global'), SESSION_KNOWLEDGE_MEMORY_ENABLE: '' };
  const run = (args: string[], input?: string): { ms: number; out: string } => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd: ws, env, input: input ?? '', encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms: Number(process.hrtime.bigint() - t0) / 1e6, out: r.stdout };
  };
  try {
    const base: number[] = [];
    const startMs: number[] = [];
    const promptMs: number[] = [];
    let blockChars = 0;
    for (let i = 0; i < RUNS; i++) {
      base.push(run(['-e', '0']).ms);
      const s = run([cli, 'hook', 'claude-code'], JSON.stringify({ session_id: `b${i}`, cwd: ws, hook_event_name: 'SessionStart', source: 'startup' }));
      startMs.push(s.ms);
      blockChars = s.out.length;
      const p = run([cli, 'hook', 'claude-code'], JSON.stringify({ session_id: `b${i}`, cwd: ws, hook_event_name: 'UserPromptSubmit', prompt: 'next' }));
      if (p.out !== '') throw new Error('a prompt after SessionStart owed the block again');
      promptMs.push(p.ms);
    }
    const b = median(base);
    console.log(`medians of ${RUNS} interleaved runs; six pinned items, ${blockChars} characters (~${Math.ceil(blockChars / 4)} tokens) per delivery\n`);
    console.log('| case | ms | node -e 0 (ms) | ratio |');
    console.log('|---|---|---|---|');
    console.log(`| SessionStart, prints the block | ${median(startMs).toFixed(1)} | ${b.toFixed(1)} | ${(median(startMs) / b).toFixed(2)}x |`);
    console.log(`| UserPromptSubmit, nothing owed (prints nothing) | ${median(promptMs).toFixed(1)} | ${b.toFixed(1)} | ${(median(promptMs) / b).toFixed(2)}x |`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (typeof module !== 'undefined' && require.main === module) {
  runAgentHookBench().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
