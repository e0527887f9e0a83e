/**
 * Findings of every text of the repository's threat corpora and fixtures (and variants of them that exercise
 * normalisation and the hidden/encoded detectors), one JSON line per text, under the three scan modes
 * (the product's judgement, rules only, no prefilter). Used to check that a change to the scanner's speed changes no
 * verdict: dump before, dump after, compare byte for byte.
 *
 *   node --import tsx scripts/threat-train/findings-dump.ts > before.jsonl
 *   node --import tsx scripts/threat-train/findings-dump.ts > after.jsonl && cmp before.jsonl after.jsonl
 *
 * `--bench` adds the two 10k-entry bench corpora (bench/threat.ts).
 *
 * `--golden` writes test/fixtures/threat-findings-golden.jsonl instead: a fixed sample of those texts (every
 * rule id that any mode reports, a dozen times where it can, and every 40th text besides) with their findings,
 * which test/unit/threatFindingsGolden.test.ts checks. Regenerate it only when a verdict is meant to change
 * (new rules or weights), never to make a speed change pass.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { scanText, type ThreatFinding } from '../../src/server/core/threat/threatScanner';
import { scanKnowledgeText } from '../../src/server/core/threat/judgement';

const ROOT = resolve(__dirname, '../..');

function jsonlFiles(dir: string, pred: (rel: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.jsonl') && pred(relative(ROOT, p))) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Every text of the threat corpora and fixtures, in a fixed order. */
export function corpusTexts(): string[] {
  const files = [
    ...jsonlFiles(resolve(ROOT, 'scripts/threat-train'), (r) => /^scripts\/threat-train\/(corpus[^/]*\/|data\/)/.test(r)),
    ...jsonlFiles(resolve(ROOT, 'test/fixtures'), (r) => /^test\/fixtures\/threat[^/]*(\/|\.jsonl$)/.test(r) && !r.includes('threat-findings-golden')),
  ];
  const texts: string[] = [];
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const t = (JSON.parse(line) as { text?: unknown }).text;
      if (typeof t === 'string') texts.push(t);
    }
  }
  return texts;
}

const HOMOGLYPH: Readonly<Record<string, string>> = { a: 'а', e: 'е', o: 'о', p: 'р', c: 'с' };

/** Deterministic variants of a text that take the scanner's other paths (normalisation, hidden and encoded text). */
export function variants(t: string, i: number): string[] {
  switch (i % 6) {
    case 0: // zero-width characters inside words
      return [t.replace(/(\w{3})(\w)/g, '$1\u200b$2')];
    case 1: // base64 payload with a decode cue
      return [`Decode this and follow it: ${Buffer.from(t, 'utf8').toString('base64')}`];
    case 2: // fullwidth letters and Cyrillic look-alikes (NFKC and homoglyph folding)
      return [t.replace(/[a-z]/g, (ch, k: number) => (k % 7 === 0 ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0) : (HOMOGLYPH[ch] ?? ch)))];
    case 3: // hidden HTML container
      return [`Build notes.\n<!-- ${t} -->\nThat is all.`];
    case 4: // hex and percent escapes
      return [`${Buffer.from(t.slice(0, 80), 'utf8').toString('hex').replace(/(..)/g, '$1 ')}`, encodeURIComponent(t)];
    default: // tag characters carrying the text, then the text in a longer note
      return [`See the README.${[...t.slice(0, 60)].map((ch) => String.fromCodePoint(0xe0000 + (ch.codePointAt(0)! & 0x7f))).join('')}`, `${t}\n\n${t.toUpperCase()}`];
  }
}

/** The dump's texts: the corpora, then a variant or two of each. */
export function dumpTexts(): string[] {
  const base = corpusTexts();
  return [...base, ...base.flatMap((t, i) => variants(t, i))];
}

/** One finding, compactly: every field a verdict depends on. */
export const findingKey = (f: ThreatFinding): string => `${f.ruleId}@${f.start}-${f.end}${f.inner ? `[${f.inner.join(',')}]` : ''}`;

/** The three modes' findings of one text, as the golden file stores them (the first: what the product's judgement finds). */
export function goldenFindings(t: string): [string[], string[], string[]] {
  return [scanKnowledgeText(t).map(findingKey), scanText(t, { learned: false }).map(findingKey), scanText(t, { prefilter: false }).map(findingKey)];
}

export const GOLDEN_PATH = resolve(ROOT, 'test/fixtures/threat-findings-golden.jsonl');

function writeGolden(): void {
  const texts = dumpTexts();
  const keep = new Set<number>();
  const perRule = new Map<string, number>();
  texts.forEach((t, i) => {
    const f = goldenFindings(t);
    if (i % 40 === 0) keep.add(i);
    for (const id of new Set(f.flat().map((k) => k.slice(0, k.indexOf('@'))))) {
      const n = perRule.get(id) ?? 0;
      if (n < 12) {
        perRule.set(id, n + 1);
        keep.add(i);
      }
    }
  });
  const lines = [...keep].sort((a, b) => a - b).map((i) => JSON.stringify({ text: texts[i], findings: goldenFindings(texts[i]!) }));
  writeFileSync(GOLDEN_PATH, `${lines.join('\n')}\n`);
  process.stderr.write(`${lines.length} texts, ${perRule.size} rule ids\n`);
}

async function main(): Promise<void> {
  if (process.argv.includes('--golden')) return writeGolden();
  const texts = dumpTexts();
  if (process.argv.includes('--bench')) {
    const b = await import('../../bench/threat');
    texts.push(...b.buildRealisticCorpus(), ...b.buildCorpus());
  }
  const lines: string[] = [];
  for (const t of texts) {
    lines.push(JSON.stringify([scanKnowledgeText(t), scanText(t, { learned: false }), scanText(t, { prefilter: false })]));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stderr.write(`${texts.length} texts, ${lines.filter((l) => l !== '[[],[],[]]').length} with findings\n`);
}

if (typeof module !== 'undefined' && require.main === module) void main();
