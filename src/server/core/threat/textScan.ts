// Owns the scan loop and its findings: normalise, prefiltered pattern rules, the detectors (hidden HTML,
// encoded runs, hidden characters) with recursion into what they uncover, then spans mapped back and merged.
/**
 * Contract:
 * - {@link scanText} is pure and synchronous: same text + same RULESET_VERSION → same findings.
 * - A finding never deletes anything: callers store the entry, keep it out of what the model is told,
 *   and show the finding (rule id, category, message, span) to the person.
 * - `start`/`end` are UTF-16 offsets into the ORIGINAL text, half-open. Findings that come from decoded or
 *   hidden text span the encoded/hidden run and list the rules the uncovered text tripped in `inner`.
 * - Worst case is linear-ish: bounded quantifiers only, match counts capped, decoded text budgeted
 *   (a 64 KiB adversarial input scans in well under 50 ms; see test/unit/threatScanner.test.ts).
 *
 * Pipeline: normalise (NFKC, invisible characters out, offset map) → keyword prefilter (one pass) → the
 * pattern rules whose triggers occurred → detectors (hidden characters, hidden HTML, encoded runs) → map
 * spans back → merge.
 *
 * Pure module: no `vscode`, no language-server imports (the CLI and other editors use it directly).
 */
import { findDecodedRuns, readsAsProse, readsAsWords, transformedViews, type DecodedRun, type Encoding } from './decoders';
import { findBidiRuns, findHiddenContainers, findTagRuns, findZeroWidthInWords, type HiddenContainer, type HiddenRun } from './hidden';
import type { FusedFeatures, TextFeatures } from './keywords';
import { onRequestNeeds, type OnRequestNeeds } from './onRequest';
import { findIntents } from './intent/intent';
import { analyse, counts, featureWeights, gateOf } from './model/classifier';
import { isUngated, withLookAlikeClosers } from './closerPolicy';
import { normalizeForMatching, toOriginalSpan, type NormalizedText } from './normalize';
import { findAll, runPatternRules, type RawFinding } from './patternMatch';
import { clearKeywords, scanKeywords, scanKeywordsAndFeatures } from './prefilter';
import { ruleMeta, VOCAB } from './rules';
import type { ThreatFinding } from './threatFinding';

export type { ThreatFinding } from './threatFinding';

/** Options for {@link scanText}; the defaults are what production uses. */
export interface ScanOptions {
  /** Skip rules whose trigger stems do not occur (default true). Tests turn it off to check the triggers. */
  readonly prefilter?: boolean;
  /** Run the learned stage (default true). The bench and the training analysis turn it off to see the rules alone. */
  readonly learned?: boolean;
  /** When given, receives what the learned stage vetoed in the text itself (not in decoded or hidden text). */
  readonly vetoed?: Veto[];
}

/** A finding the learned stage vetoed: its rule, where, the gate it needed and the score the text reached. */
export interface Veto {
  readonly ruleId: string;
  /** Half-open UTF-16 span in the original text. */
  readonly start: number;
  readonly end: number;
  /** The model score this rule needs to count (`scripts/threat-train/train.ts` sets it). */
  readonly gate: number;
  /** The text's best window score. */
  readonly score: number;
}

// ---------------------------------------------------------------------------------------------------------
// The scan loop and its detectors.

const DECODE_CUE = /\b(?:decode|decoded|decoding|unescape|unescaped|unhex|fromhex|atob|b64decode|base64\s{1,3}(?:-d|--decode))\b/gi;
const FOLLOW_CUE = /\b(?:follow|apply|execute|run|obey|evaluate|eval|act\s{1,3}on|carry\s{1,3}out|treat\s{1,3}it\s{1,3}as|do\s{1,3}what\s{1,3}it\s{1,3}says)\b/gi;

/** Budget of decoded characters scanned per top-level scan (all depths together). */
const DECODE_BUDGET = 65536;
const MAX_DEPTH = 2;

interface ScanState {
  budget: number;
  learned: boolean;
  vetoed?: Veto[];
  /** Set by the top-level scan: the text has no non-ASCII character (its keyword pass saw it). */
  ascii: boolean;
}

/** Scans `text` and returns findings with offsets into `text`. */
function scanInternal(text: string, depth: number, state: ScanState, prefilter: boolean): RawFinding[] {
  const out: RawFinding[] = [];
  let view: NormalizedText;
  let features: TextFeatures | null = null;
  // whether the keyword pass also computed the model's features of the view (ASCII text, learned stage on)
  let featuresDone = false;
  // the fused pass's result (null: no fused pass), and what the on-request decoders may need (read off it after the model)
  let fused: FusedFeatures | null = null;
  let needs: OnRequestNeeds | null = null;
  if (prefilter) {
    // keyword pass over the text first: ASCII text (the common case) is its own view, no normalisation pass
    if (state.learned) {
      // (the model's weights first: a model that cannot be read throws before the pass starts)
      const { weights, mask } = featureWeights();
      const f = scanKeywordsAndFeatures(text, weights, mask);
      featuresDone = f.featuresDone;
      features = f;
      fused = f;
    } else features = scanKeywords(text);
    if (depth === 0) state.ascii = !features.hasNonAscii;
    view = features.hasNonAscii ? normalizeForMatching(text) : { text, map: null };
    if (view.text !== text) features = scanKeywords(view.text);
  } else view = normalizeForMatching(text);
  const v = view.text;

  // 1. pattern rules on the view (prefiltered)
  const viewFindings: RawFinding[] = [];
  try {
    runPatternRules(v, prefilter, viewFindings);
  } finally {
    if (prefilter) clearKeywords();
  }

  // 1b. the learned stage, sentence by sentence. A pattern rule or intent lexicon that has fired on benign
  // notes counts only when the model corroborates it (the text's best window reaches that rule's gate, set by
  // training: scripts/threat-train/train.ts): the rules and lexicons say where and what, the model whether the
  // wording is an attack at all. Rules that never fired on benign notes, and the detectors below (hidden and
  // encoded text), need no corroboration.
  // the text's best window score, when the learned stage reads it (−∞: no window reaches the lowest gate)
  let best = -Infinity;
  if (state.learned) {
    // (the view of a text without non-ASCII characters is ASCII: the model need not look for any)
    const reading = analyse(v, features !== null && !features.hasNonAscii, featuresDone);
    best = reading.best;
    // (read now: a scan of decoded text below writes the feature buffer the fused pass left)
    if (best > -Infinity && depth < MAX_DEPTH) needs = onRequestNeeds(v, fused);
    // (our closer policy: a closer of our envelope is never vetoed, `closerPolicy.ts`)
    let kept = 0;
    for (const f of viewFindings) {
      if (counts(reading, f.meta.id) || isUngated(v, { ruleId: f.meta.id, start: f.start, end: f.end })) viewFindings[kept++] = f;
      else if (depth === 0 && state.vetoed) {
        const [s, e] = view.map === null ? [f.start, f.end] : toOriginalSpan(view, f.start, f.end);
        state.vetoed.push({ ruleId: f.meta.id, start: s, end: e, gate: gateOf(f.meta.id), score: reading.best });
      }
    }
    viewFindings.length = kept;
    // the most specific finding names a span: a rule before an intent lexicon before the model's sentence
    if (reading.intentsMayCount) {
      for (const hit of findIntents(v)) if (counts(reading, hit.id) && free(viewFindings, hit.start, hit.end)) viewFindings.push({ meta: ruleMeta(hit.id), start: hit.start, end: hit.end });
    }
    for (const hit of reading.hits) if (free(viewFindings, hit.start, hit.end)) viewFindings.push({ meta: ruleMeta(`model.${hit.intent}`), start: hit.start, end: hit.end });
  }

  // 2. hidden HTML containers carrying a directive
  for (const c of v.includes('<') ? findHiddenContainers(v) : NO_CONTAINERS) {
    if (c.contentEnd - c.contentStart < 12) continue;
    const content = v.slice(c.contentStart, c.contentEnd);
    VOCAB.DIRECTIVE.lastIndex = 0;
    VOCAB.AI_VOCATIVE.lastIndex = 0;
    const carriesRule = viewFindings.some((f) => f.start >= c.contentStart && f.end <= c.contentEnd);
    const addressed = VOCAB.AI_VOCATIVE.test(content);
    VOCAB.DIRECTIVE.lastIndex = 0;
    if (carriesRule || addressed || VOCAB.DIRECTIVE.test(content)) {
      viewFindings.push({ meta: ruleMeta('hidden.html-directive'), start: c.start, end: c.end, uncovered: excerpt(content) });
    }
  }

  // 3. encoded runs: decode, scan what they say
  let readableBlob = false;
  // prose is rarely stored encoded (a token, a key, an image is): encoded prose the learned stage reads as anything like
  // an instruction (a window at its lowest gate) is flagged, though no rule alone would be
  const instructionLikeProse = (text: string): boolean => state.learned && readsAsProse(text) && analyse(normalizeForMatching(text).text).best > -Infinity;
  const decodeRuns = (runs: readonly DecodedRun[]): void => {
    for (const run of runs) {
      if (state.budget <= 0) break;
      const decoded = run.decoded.slice(0, state.budget);
      state.budget -= decoded.length;
      if (readsAsWords(decoded)) readableBlob = true;
      const inner = scanInternal(decoded, depth + 1, state, prefilter);
      if (inner.length) {
        viewFindings.push({ meta: ruleMeta('encoded.payload'), start: run.start, end: run.end, inner: innerIds(inner), uncovered: excerpt(decoded) });
      } else if (instructionLikeProse(decoded)) {
        viewFindings.push({ meta: ruleMeta('encoded.instruction'), start: run.start, end: run.end, uncovered: excerpt(decoded) });
      }
    }
  };
  const mayHoldEncoded = !features || features.hasBase64Run || features.hasHexRun || features.hasEscape;
  if (mayHoldEncoded && depth < MAX_DEPTH && state.budget > 0) {
    // each decoder needs its characters: skip the ones the prefilter pass ruled out
    const encodings: Encoding[] | undefined = features
      ? [...(features.hasEscape ? (['escape', 'percent'] as const) : []), ...(features.hasHexRun ? (['hex'] as const) : []), ...(features.hasBase64Run ? (['base64'] as const) : [])]
      : undefined;
    decodeRuns(findDecodedRuns(v, undefined, encodings));
  }
  // base32, character references, character codes, ROT13 and reversed text: where the learned stage reads the text
  // as anything like an instruction ("run the encoded step", "decode and apply"), or cannot read it
  if ((!state.learned || best > -Infinity) && depth < MAX_DEPTH && state.budget > 0) {
    needs ??= onRequestNeeds(v, null);
    if (needs.encodings.length > 0) decodeRuns(findDecodedRuns(v, undefined, needs.encodings));
    for (const t of depth === 0 && needs.transformed ? transformedViews(v) : []) {
      if (state.budget <= 0) break;
      state.budget -= t.text.length;
      const inner = scanInternal(t.text, depth + 1, state, prefilter);
      if (inner.length === 0) {
        if (instructionLikeProse(t.text)) {
          const [start, end] = t.spanOf(0, t.text.length);
          viewFindings.push({ meta: ruleMeta('encoded.instruction'), start, end, uncovered: excerpt(t.text) });
        }
        continue;
      }
      let [start, end] = t.spanOf(inner[0]!.start, inner[0]!.end);
      for (const f of inner) {
        const [s2, e2] = t.spanOf(f.start, f.end);
        start = Math.min(start, s2);
        end = Math.max(end, e2);
      }
      viewFindings.push({ meta: ruleMeta('encoded.payload'), start, end, inner: innerIds(inner), uncovered: excerpt(t.text.slice(Math.min(...inner.map((f) => f.start)), Math.max(...inner.map((f) => f.end)))) });
    }
  }
  if (readableBlob) {
    for (const cue of findAll(DECODE_CUE, v, 16)) {
      const near = findAll(FOLLOW_CUE, v, 64).find(([s, e]) => Math.abs(s - cue[1]) <= 160 || Math.abs(cue[0] - e) <= 80);
      if (near) {
        viewFindings.push({ meta: ruleMeta('encoded.decode-and-follow'), start: Math.min(cue[0], near[0]), end: Math.max(cue[1], near[1]) });
        break;
      }
    }
  }

  if (view.map === null) {
    // identity map: the view's findings are the text's
    if (viewFindings.length) out.push(...viewFindings);
  } else {
    for (const f of viewFindings) {
      const [s, e] = toOriginalSpan(view, f.start, f.end);
      out.push({ ...f, start: s, end: e });
    }
  }

  // 4. hidden characters, on the original text
  // (when the view is the text itself, the keyword pass saw whether it has non-ASCII characters)
  if (view.map !== null || (features ? features.hasNonAscii : /[\u0080-\uffff]/.test(text))) {
    const hidden = (id: string, runs: HiddenRun[]): void => {
      for (const r of runs) {
        const f: RawFinding = { meta: ruleMeta(id), start: r.start, end: r.end };
        if (r.uncovered && depth < MAX_DEPTH && state.budget > 0) {
          const u = r.uncovered.slice(0, state.budget);
          state.budget -= u.length;
          const inner = scanInternal(u, depth + 1, state, prefilter);
          if (inner.length) f.inner = innerIds(inner);
          f.uncovered = excerpt(u);
        }
        out.push(f);
      }
    };
    hidden('hidden.tag-characters', findTagRuns(text));
    hidden('hidden.bidi-control', findBidiRuns(text));
    hidden('hidden.zero-width-in-word', findZeroWidthInWords(text));
  }
  return out;
}

const NO_CONTAINERS: readonly HiddenContainer[] = Object.freeze([]);

/** No finding overlaps `[s, e)`. (A module function, not a closure per scan: the scan loop allocates nothing for it.) */
function free(findings: readonly RawFinding[], s: number, e: number): boolean {
  for (let i = 0; i < findings.length; i++) if (findings[i]!.start < e && s < findings[i]!.end) return false;
  return true;
}

function innerIds(inner: readonly RawFinding[]): string[] {
  const ids = new Set<string>();
  for (const f of inner) {
    ids.add(f.meta.id);
    for (const i of f.inner ?? []) ids.add(i);
  }
  return [...ids];
}

const excerpt = (s: string): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 160 ? `${t.slice(0, 157)}...` : t;
};

/** Sorts by position and merges overlapping findings of the same rule. */
function finish(raw: RawFinding[]): ThreatFinding[] {
  if (raw.length === 0) return [];
  raw.sort((a, b) => a.start - b.start || a.end - b.end || (a.meta.id < b.meta.id ? -1 : 1));
  const out: ThreatFinding[] = [];
  const lastByRule = new Map<string, number>();
  for (const f of raw) {
    const li = lastByRule.get(f.meta.id);
    if (li !== undefined) {
      const last = out[li]!;
      if (f.start <= last.end) {
        const inner = last.inner || f.inner ? [...new Set([...(last.inner ?? []), ...(f.inner ?? [])])] : undefined;
        out[li] = { ...last, end: Math.max(last.end, f.end), ...(inner ? { inner } : {}) };
        continue;
      }
    }
    const { id, category, severity, message } = f.meta;
    const finding: ThreatFinding = {
      ruleId: id,
      category,
      severity,
      message,
      start: f.start,
      end: f.end,
      ...(f.inner ? { inner: f.inner } : {}),
      ...(f.uncovered ? { uncovered: f.uncovered } : {}),
    };
    lastByRule.set(id, out.length);
    out.push(finding);
  }
  return out;
}

/**
 * Scans one text with the current rule set. Pure; no caching (see `ThreatScanner` in threatScanner.ts for that).
 * Returns findings in text order; empty when the text is clean.
 */
export function scanText(text: string, options: ScanOptions = {}): ThreatFinding[] {
  if (text.length === 0) return [];
  return finish(scanInternal(text, 0, newState(options), options.prefilter !== false));
}

function newState(options: ScanOptions): ScanState {
  return { budget: DECODE_BUDGET, learned: options.learned !== false, ascii: false, ...(options.vetoed ? { vetoed: options.vetoed } : {}) };
}

/**
 * The findings every reader of a text gets (the rule set, the detectors, the learned stage, and our closer policy's
 * look-alike closers): what `judgement.ts` judges with, uncached. Training and evaluation measure this function.
 */
export function scanKnowledgeText(text: string, options: ScanOptions = {}): readonly ThreatFinding[] {
  if (text.length === 0) return [];
  const state = newState(options);
  const findings = finish(scanInternal(text, 0, state, options.prefilter !== false));
  // (an ASCII text without `<` and `>` cannot hold a closer: the closer search is skipped, closerPolicy.ts)
  return withLookAlikeClosers(text, findings, state.ascii);
}

/** Shared verdict of a clean text in the cache. */
const NO_FINDINGS: readonly ThreatFinding[] = Object.freeze([]);

/** {@link scanKnowledgeText} for the cache: frozen findings, one shared empty array for every clean text. */
export function scanFrozen(text: string): readonly ThreatFinding[] {
  if (text.length === 0) return NO_FINDINGS;
  const state = newState({});
  const raw = scanInternal(text, 0, state, true);
  // (an ASCII text without `<` and `>` cannot hold a closer: the closer search is skipped, closerPolicy.ts)
  const found = withLookAlikeClosers(text, raw.length === 0 ? NO_FINDINGS : finish(raw), state.ascii);
  return found.length === 0 ? NO_FINDINGS : Object.freeze(found);
}
