/**
 * Findings as lines: the one way a flagged note's findings are told by line number, so the block's withheld notice,
 * the per-finding review, the quick fix and "Remove the flagged lines…" name the same lines.
 *
 * A finding group is the findings whose lines touch or overlap (an attack of two sentences on lines 12 and 13 is one
 * group, "lines 12–13"). A finding's key (`findingKey`) names it within one content revision under one rule set: its
 * rule and span. A per-finding review records these keys (with the revision, `review/reviewStore.ts`), so it clears
 * those findings only: another finding on the same text still stands. Findings on an item's name (`names.ts`) have
 * no lines: they form their own group. Pure, no `vscode`: the server, the CLI and the extension use it.
 */

/** A finding as this module needs it: its rule and, for text findings, its half-open UTF-16 span. */
export interface LocatedFinding {
  readonly ruleId: string;
  readonly start?: number;
  readonly end?: number;
  /** A finding on the item's name, not its text. */
  readonly inName?: boolean;
}

/** Lines of a note that findings matched (1-based, inclusive), the rules and the findings' keys. */
export interface FindingGroup {
  readonly firstLine: number;
  readonly lastLine: number;
  readonly rules: string[];
  readonly keys: string[];
}

/** The findings of one text by line: the groups on the text, and those on its name (null when none). */
export interface FindingLines {
  readonly groups: FindingGroup[];
  readonly name: { rules: string[]; keys: string[] } | null;
  /** Findings without a span (a caller that judged without them): told by rule only. */
  readonly unplaced: string[];
}

/** One finding's key within its revision: rule and span (`name:` first for a finding on the item's name). */
export function findingKey(f: LocatedFinding): string {
  return `${f.inName ? 'name:' : ''}${f.ruleId}@${f.start ?? ''}-${f.end ?? ''}`;
}

/** Offsets where each line starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** The 0-based line holding `offset` (`starts`: where each line starts). */
export function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const addOnce = (list: string[], value: string): void => {
  if (!list.includes(value)) list.push(value);
};

/** Groups `findings` on `text` by line (see the module's comment). */
export function findingLines(text: string, findings: readonly LocatedFinding[]): FindingLines {
  const starts = lineStarts(text);
  const name: { rules: string[]; keys: string[] } = { rules: [], keys: [] };
  const unplaced: string[] = [];
  const spans: { first: number; last: number; f: LocatedFinding }[] = [];
  for (const f of findings) {
    if (f.inName) {
      addOnce(name.rules, f.ruleId);
      addOnce(name.keys, findingKey(f));
    } else if (f.start === undefined || f.end === undefined) addOnce(unplaced, f.ruleId);
    else spans.push({ first: lineAt(starts, f.start) + 1, last: lineAt(starts, Math.max(f.start, f.end - 1)) + 1, f });
  }
  spans.sort((a, b) => a.first - b.first || a.last - b.last);
  const groups: { firstLine: number; lastLine: number; rules: string[]; keys: string[] }[] = [];
  for (const s of spans) {
    const last = groups[groups.length - 1];
    if (last && s.first <= last.lastLine + 1) {
      last.lastLine = Math.max(last.lastLine, s.last);
      addOnce(last.rules, s.f.ruleId);
      addOnce(last.keys, findingKey(s.f));
    } else groups.push({ firstLine: s.first, lastLine: s.last, rules: [s.f.ruleId], keys: [findingKey(s.f)] });
  }
  return { groups, name: name.keys.length > 0 ? name : null, unplaced };
}

/** "line 12" or "lines 12–13". */
export function linesLabel(g: Pick<FindingGroup, 'firstLine' | 'lastLine'>): string {
  return g.firstLine === g.lastLine ? `line ${g.firstLine}` : `lines ${g.firstLine}–${g.lastLine}`;
}

/** One group for a person and a model alike: "lines 12–13 matched exfil.secret-to-sink". */
export function groupLabel(g: FindingGroup): string {
  return `${linesLabel(g)} matched ${g.rules.join(', ')}`;
}

/** Why an item is withheld, by line: "lines 12–13 matched a; line 20 matched b" (its name first, when it reads as one). */
export function withheldByLines(lines: FindingLines): string {
  const parts: string[] = [];
  if (lines.name) parts.push(`its name reads as an instruction (${lines.name.rules.join(', ')})`);
  parts.push(...lines.groups.map(groupLabel));
  if (lines.unplaced.length > 0) parts.push(`reads as an instruction (${lines.unplaced.join(', ')})`);
  return parts.join('; ');
}

/** The text of lines `first`..`last` (1-based, inclusive), each with its number. */
export function numberedLines(text: string, first: number, last: number): { line: number; text: string }[] {
  const all = text.split('\n');
  const out: { line: number; text: string }[] = [];
  for (let n = first; n <= Math.min(last, all.length); n++) out.push({ line: n, text: all[n - 1]!.replace(/\r$/, '') });
  return out;
}

/** `text` without the lines of `groups` (what "Remove the flagged lines…" leaves). */
export function withoutLines(text: string, groups: readonly Pick<FindingGroup, 'firstLine' | 'lastLine'>[]): string {
  const gone = new Set<number>();
  for (const g of groups) for (let n = g.firstLine; n <= g.lastLine; n++) gone.add(n);
  return text
    .split('\n')
    .filter((_, i) => !gone.has(i + 1))
    .join('\n');
}

/** The findings that still stand after per-finding reviews (`clearance.findings`, `review/reviewStore.ts`). */
export function standingAfter<F extends LocatedFinding>(findings: readonly F[], clearance: { readonly findings?: ReadonlySet<string> } | undefined): readonly F[] {
  const cleared = clearance?.findings;
  return cleared && cleared.size > 0 ? findings.filter((f) => !cleared.has(findingKey(f))) : findings;
}
