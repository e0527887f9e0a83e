/**
 * The knowledge block: the text a session is owed. Pinned notes, plans and files in full (in pin order), then
 * the memory index (titles only), inside an untrusted-data envelope that stored text cannot close. Capped by
 * a token budget; what does not fit is cut loudly, in the block itself and in the result's `budget`.
 *
 * Failure behaviour: a pinned item that cannot be read is marked unavailable, never dropped silently; a
 * pinned item whose text trips a threat rule is withheld (one line naming its id and rule), never sent.
 * Pure Node, no `vscode`: the server, the CLI and the benchmarks call it directly.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { gateForEnvelope, wrapGated, wrapInEnvelope } from '../threat/envelope';
import { checkPinnable } from '../pinPolicy';
import { computeSignature, type SignatureItem } from './deliveredSignature';
import { isNameFinding } from '../threat/names';
import { MAX_KNOWLEDGE_BYTES, TRUNCATED_LINE } from '../notes/knowledgeFile';
import { RevisionReader } from '../notes/revisionReader';
import { pinKind } from '../notes/pinKind';
import { findingLines, withheldByLines } from '../review/findingLines';
import { blockPreamble, withheldLine, type BlockDestination } from './blockWords';

/** A finding as the block needs it; the scanner's findings carry more. */
export interface BlockFinding {
  ruleId: string;
  category: string;
  /** Its span in the text (half-open UTF-16), when the judge has it: the withheld notice names the lines. */
  start?: number;
  end?: number;
}

/** Scans text with the current rule set; `contentHash` (sha256 hex), when the caller has it, saves hashing again. */
export type ScanFn = (text: string, contentHash?: string) => readonly BlockFinding[];

/**
 * Judges one item's text now, with the current rule set: answers the findings that stand (a person's
 * "reviewed — not a threat" for this exact revision and rule set clears them).
 */
export type JudgeFn = (id: string, text: string, revision: string) => readonly BlockFinding[];

export interface MemoryIndexEntry {
  id: string;
  revision: string;
  /** One line: type, title, marks. Bodies are read through the memory tool, never put in the block. */
  line: string;
}

export interface PinnedContent {
  id: string;
  kind: 'note' | 'plan' | 'file';
  state: 'ok' | 'withheld' | 'unavailable';
  revision: string;
  text: string;
  /** Why it was withheld or unavailable. */
  reason?: string;
  findings?: readonly BlockFinding[];
  /** Its id reads as an instruction (`threat/names.ts`): the block never prints it. */
  nameWithheld?: boolean;
}

export interface BlockBudget {
  /** Tokens the block may use (by the model's ratio when the client sent it, else estimated at ~4 characters a token). */
  budgetTokens: number;
  usedTokens: number;
  /** Pinned items (or parts of one) and memory entries that were left out. */
  cutItems: string[];
  cutMemoryEntries: number;
}

export interface CompiledBlock {
  text: string;
  signature: string;
  items: PinnedContent[];
  budget: BlockBudget;
  /** Memory entries listed in the block's index (0 without one). */
  memoryEntries?: number;
}

/** Files larger than this are read only up to it; the block says so (the one cap of every knowledge-file read). */
export const MAX_PINNED_BYTES = MAX_KNOWLEDGE_BYTES;

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** The server's estimate: ~4 characters a token. A client that knows its model's own ratio sends it instead. */
export const DEFAULT_TOKENS_PER_CHAR = 0.25;

/** Tokens of `text` at `tokensPerChar` (the default is exactly `estimateTokens`). */
const tokensAt = (tokensPerChar: number) => (tokensPerChar === DEFAULT_TOKENS_PER_CHAR ? estimateTokens : (text: string): number => Math.ceil(text.length * tokensPerChar));

/** Where a pinned id is on disk, after the pin policy: its absolute path and its path inside its folder. */
export type PinLocation = { ok: true; path: string; rel: string } | { ok: false; reason: string };

/**
 * Reads pinned files through the core's one reader (`notes/revisionReader.ts`): the bytes and revision the note
 * index and judgement saw, and an unchanged file (same stat) is not read or hashed again.
 */
export class PinnedFileReader {
  private readonly locate: (id: string) => PinLocation;

  /**
   * `workspace`: one folder, or how an id is checked and found on disk (every folder of a workspace). `reader`: the
   * core's one reader (a reader of its own when absent).
   */
  constructor(
    workspace: string | ((id: string) => PinLocation),
    private readonly reader: RevisionReader = new RevisionReader(),
  ) {
    this.locate =
      typeof workspace === 'string'
        ? (id) => {
            const check = checkPinnable(workspace, id);
            return check.ok ? { ok: true, path: join(workspace, check.id), rel: check.id } : check;
          }
        : workspace;
  }

  /**
   * Reads a pinned file now (remembered while its stat is unchanged). `kind` says note, plan or file by the path
   * inside its folder (an id may start with its folder's name).
   */
  async read(id: string): Promise<({ revision: string; text: string; truncated: boolean } | { error: string }) & { kind: PinnedContent['kind'] }> {
    const check = this.locate(id);
    if (!check.ok) return { error: check.reason, kind: pinKind(id) };
    const kind = pinKind(check.rel);
    const path = check.path;
    try {
      // Synchronous on purpose: a stat is microseconds, and 50 pins awaiting the thread pool cost more than they save.
      const stat = statSync(path, { bigint: true });
      if (!stat.isFile()) return { error: 'not a file', kind };
      // The one reader of knowledge files: up to the cap, revision = hash of exactly the bytes read.
      const read = await this.reader.read(path, stat);
      if (read.binary) return { error: 'a binary file, not text', kind };
      return { revision: read.revision, text: read.text, truncated: read.truncated, kind };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return { error: code === 'ENOENT' ? 'deleted or moved' : `unreadable (${code ?? (err as Error).message})`, kind };
    }
  }
}

/**
 * Reads and judges each pin. `judge` answers the findings on an item's name with those on its text (a review of
 * the item clears both); `judgeName` is asked for items that cannot be read, whose name is still printed.
 */
export async function loadPinned(reader: PinnedFileReader, pins: readonly string[], judge: JudgeFn, judgeName: (id: string) => readonly BlockFinding[] = () => []): Promise<PinnedContent[]> {
  return Promise.all(
    pins.map(async (id): Promise<PinnedContent> => {
      const read = await reader.read(id);
      const kind = read.kind;
      if ('error' in read) return { id, kind, state: 'unavailable', revision: 'unavailable', text: '', reason: read.error, ...(judgeName(id).length > 0 ? { nameWithheld: true } : {}) };
      const findings = judge(id, read.text, read.revision);
      if (findings.length > 0) {
        const named = findings.some(isNameFinding);
        // By line number ("lines 12–13 matched exfil.secret-to-sink"): the model and the person see the same lines.
        const reason = withheldByLines(findingLines(read.text, findings.map((f) => ({ ...f, inName: isNameFinding(f) }))));
        return { id, kind, state: 'withheld', revision: read.revision, text: '', findings, reason, ...(named ? { nameWithheld: true } : {}) };
      }
      const text = read.truncated ? `${read.text}\n${TRUNCATED_LINE}` : read.text;
      return { id, kind, state: 'ok', revision: read.revision, text };
    }),
  );
}

/** Room kept for the "N more remembered entries" line when the memory index does not fit whole (characters). */
const MEMORY_MORE_CHARS = 96;
/** Room kept for the cut notices (characters): they are text, so their cost follows the model's ratio too. */
const NOTICE_CHARS = 240;

/** The loud line under a memory index that was cut: how many entries, and where to find them. */
export function memoryMoreLine(count: number, anyListed: boolean): string {
  return `[${count} ${anyListed ? 'more ' : ''}remembered ${count === 1 ? 'entry' : 'entries'} not listed — use knowledge_recall to search them.]\n`;
}

/** A block before its envelope: the gated inside (null when there is nothing to send), signature, items, budget. */
interface CompiledInside {
  inside: string | null;
  signature: string;
  items: readonly PinnedContent[];
  budget: BlockBudget;
  memoryEntries: number;
}

/**
 * The block text around a compiled inside, with a FRESH nonce every time: the nonce is drawn after every
 * stored text in the block was read, so none of it can carry the nonce, and each text actually sent has its
 * own. The signature (what a session carries) is the inside's, so it never depends on the nonce.
 */
function wrapCompiled(c: CompiledInside, tokensPerChar = DEFAULT_TOKENS_PER_CHAR): CompiledBlock {
  if (c.inside === null) return { text: '', signature: c.signature, items: [...c.items], budget: { ...c.budget, cutItems: [...c.budget.cutItems] }, memoryEntries: 0 };
  const text = wrapGated(c.inside);
  return { text, signature: c.signature, items: [...c.items], budget: { ...c.budget, cutItems: [...c.budget.cutItems], usedTokens: tokensAt(tokensPerChar)(text) }, memoryEntries: c.memoryEntries };
}

/**
 * `compileBlock` memoised by the revisions of its inputs: the same pins at the same revisions and states, the same
 * memory index (the very array: the memory service answers the same one while nothing it depends on changed) and
 * the same budgets answer the inside compiled last time — "did anything change?" is one comparison. The memo keeps
 * the gated inside, never a nonce: every call wraps it anew with a fresh one.
 */
export class BlockMemo {
  /** The last insides by input key (a few: the panel resolves several sessions in turn). */
  private readonly recent = new Map<string, { memory: readonly MemoryIndexEntry[] | null; block: CompiledInside }>();

  constructor(private readonly size = 32) {}

  compile(items: readonly PinnedContent[], memory: readonly MemoryIndexEntry[] | null, budgetTokens: number, memoryBudgetTokens = Number.POSITIVE_INFINITY, tokensPerChar = DEFAULT_TOKENS_PER_CHAR, destination: BlockDestination = 'chat'): CompiledBlock {
    let key = `${budgetTokens}\u0000${memoryBudgetTokens}\u0000${tokensPerChar}\u0000${destination}`;
    for (const i of items) key += `\u0000${i.id}\u0001${i.revision}\u0001${i.state}\u0001${i.reason ?? ''}\u0001${i.nameWithheld ? 1 : 0}`;
    const hit = this.recent.get(key);
    if (hit && hit.memory === memory) return wrapCompiled(hit.block, tokensPerChar);
    const block = compileInside(items, memory, budgetTokens, memoryBudgetTokens, tokensPerChar, destination);
    this.recent.delete(key);
    this.recent.set(key, { memory, block });
    if (this.recent.size > this.size) this.recent.delete(this.recent.keys().next().value!);
    return wrapCompiled(block, tokensPerChar);
  }
}

/**
 * Builds the block text and its signature. `memory` is null when memory does not exist or is off; its lines
 * take at most `memoryBudgetTokens` (the memory index budget) of the block's budget. Every string from outside
 * (ids, bodies, reasons, rule names, index lines) passes {@link gateForEnvelope}, and the whole inside passes
 * it again in {@link wrapInEnvelope}: nothing stored can close the envelope. `destination` decides the preamble's
 * words and where a withheld item can be reviewed (`blockWords.ts`); the signature never depends on it.
 */
export function compileBlock(
  items: readonly PinnedContent[],
  memory: readonly MemoryIndexEntry[] | null,
  budgetTokens: number,
  memoryBudgetTokens = Number.POSITIVE_INFINITY,
  destination: BlockDestination = 'chat',
): CompiledBlock {
  return wrapCompiled(compileInside(items, memory, budgetTokens, memoryBudgetTokens, DEFAULT_TOKENS_PER_CHAR, destination));
}

function compileInside(
  items: readonly PinnedContent[],
  memory: readonly MemoryIndexEntry[] | null,
  budgetTokens: number,
  memoryBudgetTokens: number,
  tokensPerChar = DEFAULT_TOKENS_PER_CHAR,
  destination: BlockDestination = 'chat',
): CompiledInside {
  const estimate = tokensAt(tokensPerChar);
  const sigPins: SignatureItem[] = items.map((i) => ({ id: i.id, revision: i.revision, state: i.state }));
  const sigMemory: SignatureItem[] | null = memory ? memory.map((m) => ({ id: m.id, revision: m.revision, state: 'ok' })) : null;
  const signature = computeSignature(sigPins, sigMemory);
  const budget: BlockBudget = { budgetTokens, usedTokens: 0, cutItems: [], cutMemoryEntries: 0 };
  if (items.length === 0 && (!memory || memory.length === 0)) {
    return { inside: null, signature, items, budget, memoryEntries: 0 };
  }
  const preamble = blockPreamble(destination, { pins: items.length > 0, memory: Boolean(memory && memory.length > 0) });

  const g = gateForEnvelope;
  // Room for the envelope and for the cut notices, so the notices themselves always fit.
  const reserve = (chars: number): number => Math.ceil(chars * tokensPerChar);
  let remaining = budgetTokens - estimate(wrapInEnvelope(preamble, '')) - reserve(NOTICE_CHARS) - (memory && memory.length > 0 ? reserve(MEMORY_MORE_CHARS) : 0);
  const parts: string[] = [];
  const add = (s: string): boolean => {
    const cost = estimate(s);
    if (cost > remaining) return false;
    parts.push(s);
    remaining -= cost;
    return true;
  };

  for (const item of items) {
    const label = item.kind === 'file' ? 'Pinned file' : item.kind === 'note' ? 'Pinned note' : 'Pinned plan';
    // A name that reads as an instruction is never printed: the item is named by what it is.
    const shown = item.nameWithheld ? `(a ${item.kind} whose name is withheld)` : item.id;
    const id = g(shown);
    if (item.state === 'unavailable') {
      if (!add(`\n[${label} ${id} is unavailable: ${g(item.reason ?? 'could not be read')}.]\n`)) budget.cutItems.push(shown);
      continue;
    }
    if (item.state === 'withheld') {
      if (!add(`\n${withheldLine(destination, id, g(item.reason ?? 'reads as an instruction'))}\n`)) budget.cutItems.push(shown);
      continue;
    }
    const header = `\n--- ${label}: ${id} ---\n`;
    const body = g(item.text);
    if (add(header + body + (body.endsWith('\n') ? '' : '\n'))) continue;
    // Does not fit whole: include the part that fits, and say what was cut.
    const room = Math.floor(remaining / tokensPerChar) - header.length - 120;
    if (room > 200) {
      const partial = body.slice(0, room);
      const cutTokens = estimate(body.slice(room));
      add(`${header}${partial}\n[… ${cutTokens} tokens of ${id} were cut to fit the block's budget]\n`);
      budget.cutItems.push(`${item.id} (partly)`);
    } else {
      budget.cutItems.push(item.id);
    }
  }

  let included = 0;
  if (memory && memory.length > 0) {
    let indexRoom = memoryBudgetTokens;
    if (add('\n--- Memory index (titles only; read an entry with the memory tool) ---\n')) {
      for (const entry of memory) {
        const line = `- ${g(entry.line)}\n`;
        const cost = estimate(line);
        if (cost > indexRoom || !add(line)) break;
        indexRoom -= cost;
        included += 1;
      }
    }
    budget.cutMemoryEntries = memory.length - included;
    // Loud, with a count and a pointer: the room for this line was kept aside above.
    if (budget.cutMemoryEntries > 0) parts.push(memoryMoreLine(budget.cutMemoryEntries, included > 0));
  }

  if (budget.cutItems.length > 0) {
    parts.push(`\n[Cut to fit the ${budgetTokens}-token budget — left out: pinned: ${budget.cutItems.map(g).join(', ')}. Ask the user to unpin something or raise sessionKnowledge.blockTokenBudget.]\n`);
  }

  // The same inside wrapInEnvelope gates: preamble and content together.
  const inside = gateForEnvelope(`${preamble}\n${parts.join('')}`);
  budget.usedTokens = estimate(wrapGated(inside));
  return { inside, signature, items, budget, memoryEntries: included };
}
