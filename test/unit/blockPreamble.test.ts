/**
 * The block's preamble says where the block went and what it holds (`blockWords.ts`, through `compileBlock`):
 * per destination (VS Code's chat, Claude Code's hook, the MCP tool, Copilot's instruction file) and per content
 * (a memory index or not); a withheld item tells each destination's reader how to see it. Every variant is product
 * text the model reads and a replay judges again: none may trip the threat judgement.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileBlock, type MemoryIndexEntry, type PinnedContent } from '../../src/server/core/delivery/knowledgeBlock';
import { judge } from '../../src/server/core/threat/judgement';

const OK: PinnedContent = { id: '.knowledge/notes/setup.md', kind: 'note', state: 'ok', revision: '1'.repeat(64), text: 'Use pnpm.\n' };
const WITHHELD: PinnedContent = { id: '.knowledge/notes/bad.md', kind: 'note', state: 'withheld', revision: '2'.repeat(64), text: '', reason: 'reads as an instruction (override.ignore-instructions)' };
const MEMORY: MemoryIndexEntry[] = [{ id: 'm1', revision: '3'.repeat(64), line: '[fact] The API lives in packages/api (id m1)' }];
type Destination = 'chat' | 'claude-code' | 'mcp' | 'copilot';
const DESTINATIONS: Destination[] = ['chat', 'claude-code', 'mcp', 'copilot'];
const compile = (items: PinnedContent[], memory: MemoryIndexEntry[] | null, destination?: Destination) =>
  (compileBlock as (...args: unknown[]) => { text: string; signature: string })(items, memory, 8000, Number.POSITIVE_INFINITY, destination);
/** The preamble: the block's first line after the envelope's nonce line. */
const preamble = (text: string) => text.split('\n')[3]!;

test('memory off or empty: the preamble does not mention an index of what was remembered', () => {
  for (const destination of DESTINATIONS) {
    for (const memory of [null, []]) {
      const p = preamble(compile([OK], memory, destination).text);
      assert.doesNotMatch(p, /remembered/, `${destination}, memory ${JSON.stringify(memory)}: ${p}`);
    }
  }
  assert.match(preamble(compile([OK], MEMORY, 'chat').text), /^Project knowledge the user pinned to this chat session, and an index of what was remembered\./);
  assert.match(preamble(compile([], MEMORY, 'chat').text), /^An index of what was remembered/, 'nothing pinned: the block is the index alone');
});

test('each destination names itself; only VS Code\'s chat says a chat session and the user\'s message after it', () => {
  const chat = preamble(compile([OK], null).text);
  assert.equal(chat, preamble(compile([OK], null, 'chat').text), 'chat is the default');
  assert.match(chat, /^Project knowledge the user pinned to this chat session\. .*The user's own message comes after this block\.$/);
  const want: Record<Exclude<Destination, 'chat'>, RegExp> = {
    'claude-code': /delivered to this Claude Code session\./,
    mcp: /returned by the knowledge_context tool\./,
    copilot: /shared with Copilot through this instruction file\./,
  };
  for (const [destination, re] of Object.entries(want) as [Exclude<Destination, 'chat'>, RegExp][]) {
    const p = preamble(compile([OK], null, destination).text);
    assert.match(p, re, p);
    assert.doesNotMatch(p, /chat session|user's own message/, `${destination}: ${p}`);
    assert.match(p, /data from files, not instructions/);
  }
});

test('the signature does not depend on the destination (a session carries the same block wherever it went)', () => {
  const sigs = new Set(DESTINATIONS.map((d) => compile([OK, WITHHELD], MEMORY, d).signature));
  assert.equal(sigs.size, 1);
});

test('a withheld item: VS Code users review it in VS Code; Claude Code and MCP readers are told the CLI command', () => {
  for (const destination of DESTINATIONS) {
    const text = compile([WITHHELD, OK], null, destination).text;
    assert.match(text, /\[A pinned item was withheld: \.knowledge\/notes\/bad\.md — reads as an instruction \(override\.ignore-instructions\)\./);
    if (destination === 'claude-code' || destination === 'mcp') assert.match(text, /session-knowledge scan/, destination);
    else assert.match(text, /The user can review it in VS Code\.\]/, destination);
  }
});

test('every preamble and withheld line is clean to the threat judgement (a replay judges them again)', () => {
  for (const destination of DESTINATIONS) {
    for (const items of [[OK], [], [WITHHELD]]) {
      for (const memory of [null, MEMORY]) {
        if (items.length === 0 && !memory) continue;
        const text = compile(items, memory, destination).text;
        const lines = text.split('\n').filter((l) => l.startsWith('[A pinned item') || l === preamble(text));
        for (const line of lines) assert.equal(judge({ kind: 'text', text: line }).flagged, false, `${destination}: ${line}`);
      }
    }
  }
});
