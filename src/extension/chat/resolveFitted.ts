/**
 * The block a session is owed, fitted to the model's own token count: the protocol side of `resolveBlockSafely`,
 * without `vscode` (the first-message test and bench drive it over the real server).
 *
 * The client sends the model's tokens per character with the request, so the server cuts the block to the budget
 * once. The ratio is learned from what the model counted last (the block it was sent), and the first time from a
 * sample shaped like a block. Only when the model still counts the block over the budget (its ratio moved) is the
 * block resolved a second time, at the ratio just measured.
 */
import type { RequestType } from 'vscode-languageserver-protocol';
import { ResolvePendingRequest } from '../../shared/protocol';
import type { PendingBlock, ResolveParams } from '../../shared/sessionSchemas';

/** Sends one request (the extension: `requestWithTimeout`). */
export type ResolveAsk = <P, R>(type: RequestType<P, R, void>, params: P) => Promise<R>;

/** What the model offers: its id and its own token count. */
export interface TokenCounter {
  id: string;
  countTokens(text: string): Thenable<number> | Promise<number>;
}

/** Text shaped like a block (envelope, headings, prose, code, a list): the first measure of a model's ratio. */
const SAMPLE = [
  '<knowledge-untrusted nonce="0f3a9c2e71d4b6a8e5c1f0d2">',
  '<<<BEGIN_UNTRUSTED_KNOWLEDGE 0f3a9c2e71d4b6a8e5c1f0d2>>>',
  'Project knowledge the user pinned to this chat session, and an index of what was remembered.',
  '--- Pinned note: .knowledge/notes/setup.md ---',
  '# Setup',
  '',
  'Run `npm ci`, then `npm test`. The payment service retries idempotent calls three times with jittered backoff;',
  'see docs/retries.md. Releases are cut from `release/2.0` after the API freeze.',
  '',
  '```ts',
  'export async function retry<T>(fn: () => Promise<T>, times = 3): Promise<T> { return fn(); }',
  '```',
  '- [ ] freeze the API',
  '- [x] tag v1.9.4',
  '<<<END_UNTRUSTED_KNOWLEDGE 0f3a9c2e71d4b6a8e5c1f0d2>>>',
  '</knowledge-untrusted nonce="0f3a9c2e71d4b6a8e5c1f0d2">',
].join('\n');

const MIN_RATIO = 0.01;
const MAX_RATIO = 4;
const clamp = (r: number): number => Math.min(MAX_RATIO, Math.max(MIN_RATIO, r));

/** Each model's tokens per character, as it last counted (by model id); lives as long as the extension. */
export class ModelRatios {
  private readonly byModel = new Map<string, number>();

  /** The model's ratio: as learned, else measured on the sample now; undefined when the model cannot count. */
  async of(model: TokenCounter): Promise<number | undefined> {
    const known = this.byModel.get(model.id);
    if (known !== undefined) return known;
    try {
      return this.learn(model.id, await model.countTokens(SAMPLE), SAMPLE.length);
    } catch {
      return undefined; // the server's estimate this time
    }
  }

  learn(modelId: string, tokens: number, chars: number): number | undefined {
    if (!(tokens > 0) || !(chars > 0)) return undefined;
    const ratio = clamp(tokens / chars);
    this.byModel.set(modelId, ratio);
    return ratio;
  }
}

/**
 * Resolves the block for `budget` tokens by `model`'s count: one request, unless the model counts the answer over the
 * budget; then once more at the ratio just measured, with a little room. `onRefit`: told when that happens.
 */
export async function resolveFitted(
  ask: ResolveAsk,
  key: string,
  budget: number,
  model?: TokenCounter,
  ratios: ModelRatios = new ModelRatios(),
  onRefit?: (actual: number, tokensPerChar: number) => void,
): Promise<PendingBlock> {
  const resolve = (tokensPerChar: number | undefined) => {
    const params: ResolveParams = { key, budgetTokens: budget, ...(tokensPerChar !== undefined ? { tokensPerChar } : {}) };
    return ask(ResolvePendingRequest.type, params);
  };
  const ratio = model ? await ratios.of(model) : undefined;
  const block = await resolve(ratio);
  if (!model || !block.text) return block;
  const actual = await model.countTokens(block.text);
  const measured = ratios.learn(model.id, actual, block.text.length);
  if (actual <= budget || measured === undefined) return block;
  const again = clamp(measured * 1.05);
  onRefit?.(actual, again);
  return resolve(again);
}
