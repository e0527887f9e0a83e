/**
 * Necessary literals of a regex: from a rule's regex source, derives a boolean formula over literal strings
 * (AND / OR of "this literal occurs in the text") that holds for every text the regex matches anywhere.
 * The scanner evaluates the formula against the keyword automaton's hits and skips the regex when it is
 * false (the approach of RE2's prefilter trees / Google Code Search).
 *
 * Soundness is all that matters here: a formula may be weaker than needed (TRUE in the worst case), never
 * stronger. So everything the extractor does not understand becomes TRUE:
 * - character classes larger than a few characters, `.`, `\w\s\d…`, back-references, non-ASCII characters;
 * - repetitions that may match nothing (`?`, `*`, `{0,n}`) lose their literal, `x+` / `x{n,m}` keep x's;
 * - lookarounds are treated as empty (they never add a condition).
 * Literals are lowercased (the keyword automaton folds ASCII case; JS `i` without `u` never maps a
 * non-ASCII character to an ASCII one). A `\b` next to a word character becomes a word-boundary flag on
 * the literal (`\bpr\b` → "pr" as a whole word), which is what keeps short words from matching everywhere.
 *
 * Pure module.
 */

/** A formula over literals. Atom keys encode boundary flags: leading / trailing `\x01` = word boundary. */
export type Formula =
  | { readonly op: 'true' }
  | { readonly op: 'atom'; readonly key: string }
  | { readonly op: 'and' | 'or'; readonly kids: readonly Formula[] };

export const TRUE: Formula = { op: 'true' };

/** Boundary marker inside exact strings and atom keys. */
export const B = '\x01';

/** Largest exact set kept (beyond it, the set becomes an OR / the concatenation an AND). */
const MAX_EXACT = 256;

interface Info {
  /** The node matches exactly one of these strings (with `B` markers for `\b`), or null when unknown. */
  readonly exact: ReadonlySet<string> | null;
  /** Necessary condition when `exact` is null. */
  readonly cond: Formula;
}

const any: Info = { exact: null, cond: TRUE };
const empty = (): Info => ({ exact: new Set(['']), cond: TRUE });

const isWord = (c: string): boolean => /^[a-z0-9_]$/i.test(c);

/** Atom key for an exact string, or null when it carries no usable literal. */
function atomKey(s: string): string | null {
  const lead = s.startsWith(B);
  const trail = s.endsWith(B) && s.length > 1;
  const core = s.split(B).join('');
  const start = lead && isWord(core[0] ?? '');
  const end = trail && isWord(core[core.length - 1] ?? '');
  // Too common to be worth a keyword: 1–2 characters unless a whole word ("pr", "nc").
  if (core.length < 3 && !(start && end && core.length === 2)) return null;
  return (start ? B : '') + core + (end ? B : '');
}

/** True when every text containing atom `b` also contains atom `a` (a's literal inside b's, flags implied). */
function covers(a: string, b: string): boolean {
  const aStart = a.startsWith(B);
  const aEnd = a.endsWith(B) && a.length > 1;
  const bStart = b.startsWith(B);
  const bEnd = b.endsWith(B) && b.length > 1;
  const ac = a.slice(aStart ? 1 : 0, aEnd ? -1 : undefined);
  const bc = b.slice(bStart ? 1 : 0, bEnd ? -1 : undefined);
  if (aStart && aEnd) return a === b;
  if (aStart) return bStart && bc.startsWith(ac);
  if (aEnd) return bEnd && bc.endsWith(ac);
  return bc.includes(ac);
}

export function and(kids: readonly Formula[]): Formula {
  const out: Formula[] = [];
  const keys = new Set<string>();
  for (const k of kids) {
    const parts = k.op === 'and' ? k.kids : [k];
    for (const p of parts) {
      if (p.op === 'true') continue;
      const key = JSON.stringify(p);
      if (keys.has(key)) continue;
      keys.add(key);
      out.push(p);
    }
  }
  return out.length === 0 ? TRUE : out.length === 1 ? out[0]! : { op: 'and', kids: out };
}

export function or(kids: readonly Formula[]): Formula {
  const out: Formula[] = [];
  const keys = new Set<string>();
  for (const k of kids) {
    if (k.op === 'true') return TRUE;
    for (const p of k.op === 'or' ? k.kids : [k]) {
      const key = JSON.stringify(p);
      if (keys.has(key)) continue;
      keys.add(key);
      out.push(p);
    }
  }
  // "send" OR "sending" = "send": drop atoms another atom of the OR covers
  const atoms = out.filter((k): k is { op: 'atom'; key: string } => k.op === 'atom').map((k) => k.key);
  for (let i = out.length - 1; i >= 0; i--) {
    const k = out[i]!;
    if (k.op === 'atom' && atoms.some((a) => a !== k.key && covers(a, k.key))) out.splice(i, 1);
  }
  return out.length === 0 ? TRUE : out.length === 1 ? out[0]! : { op: 'or', kids: out };
}

function exactToCond(exact: ReadonlySet<string>): Formula {
  const kids: Formula[] = [];
  for (const s of exact) {
    const key = atomKey(s);
    if (key === null) return TRUE;
    kids.push({ op: 'atom', key });
  }
  return or(kids);
}

const condOf = (i: Info): Formula => (i.exact ? exactToCond(i.exact) : i.cond);

function concat(a: Info, b: Info): Info {
  if (a.exact && b.exact && a.exact.size * b.exact.size <= MAX_EXACT) {
    const out = new Set<string>();
    for (const x of a.exact) for (const y of b.exact) out.add(x + y);
    return { exact: out, cond: TRUE };
  }
  return { exact: null, cond: and([condOf(a), condOf(b)]) };
}

function alternate(xs: readonly Info[]): Info {
  if (xs.every((x) => x.exact)) {
    const out = new Set<string>();
    for (const x of xs) for (const s of x.exact!) out.add(s);
    if (out.size <= MAX_EXACT) return { exact: out, cond: TRUE };
  }
  return { exact: null, cond: or(xs.map(condOf)) };
}

/** Chars of a small class, lowercased; null when the class is large, negated or not plain ASCII. */
function classChars(body: string): string[] | null {
  if (body.startsWith('^')) return null;
  const items: number[] = [];
  for (let i = 0; i < body.length; i++) {
    let c = body[i]!;
    let code: number;
    if (c === '\\') {
      const e = body[++i]!;
      if ('wWsSdDbB'.includes(e)) return null;
      if (e === 'x') {
        code = parseInt(body.slice(i + 1, i + 3), 16);
        i += 2;
      } else if (e === 'u') {
        code = parseInt(body.slice(i + 1, i + 5), 16);
        i += 4;
      } else if (e === 'n') code = 10;
      else if (e === 't') code = 9;
      else if (e === 'r') code = 13;
      else if (/[a-z0-9]/i.test(e)) return null; // \c, \p, \0… : not understood
      else code = e.charCodeAt(0);
      c = String.fromCharCode(code);
    } else code = c.charCodeAt(0);
    if (body[i + 1] === '-' && i + 2 < body.length) {
      // range
      const hi = body[i + 2]!;
      if (hi === '\\') return null;
      const hiCode = hi.charCodeAt(0);
      if (hiCode < code || hiCode - code > 16) return null;
      for (let k = code; k <= hiCode; k++) items.push(k);
      i += 2;
      continue;
    }
    items.push(code);
  }
  const out = new Set<string>();
  for (const k of items) {
    if (k >= 128) return null;
    out.add(String.fromCharCode(k).toLowerCase());
  }
  return out.size <= 8 ? [...out] : null;
}

/** Recursive-descent parser over the subset of JS regex syntax the rule table uses. */
class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Info {
    const r = this.alt();
    if (this.i !== this.src.length) throw new Error(`literals: unexpected ${this.src[this.i]} at ${this.i} in /${this.src}/`);
    return r;
  }

  private alt(): Info {
    const branches = [this.seq()];
    while (this.src[this.i] === '|') {
      this.i++;
      branches.push(this.seq());
    }
    return branches.length === 1 ? branches[0]! : alternate(branches);
  }

  /** A sequence: literal runs are joined while they stay exact; a non-literal item closes the run. */
  private seq(): Info {
    const conds: Formula[] = [];
    let run: ReadonlySet<string> = new Set(['']);
    let exact = true;
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const item = this.quantified();
      if (item.exact) {
        const joined = concat({ exact: run, cond: TRUE }, item);
        if (joined.exact) run = joined.exact;
        else {
          exact = false;
          conds.push(exactToCond(run));
          run = item.exact;
        }
      } else {
        exact = false;
        conds.push(exactToCond(run), item.cond);
        run = new Set(['']);
      }
    }
    if (exact) return { exact: run, cond: TRUE };
    conds.push(exactToCond(run));
    return { exact: null, cond: and(conds) };
  }

  private quantified(): Info {
    const atom = this.atom();
    const s = this.src;
    let min = 1;
    let max = 1;
    const c = s[this.i];
    if (c === '?') [min, max] = [0, 1];
    else if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
      if (!m) throw new Error(`literals: bad quantifier at ${this.i} in /${s}/`);
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (s[this.i] === '?') this.i++; // lazy
    if (min === 1 && max === 1) return atom;
    if (min === 0) {
      if (max === 1 && atom.exact) return alternate([atom, empty()]);
      return any;
    }
    return { exact: null, cond: condOf(atom) };
  }

  private atom(): Info {
    const s = this.src;
    const c = s[this.i]!;
    if (c === '(') {
      this.i++;
      let look = false;
      if (s.startsWith('?:', this.i)) this.i += 2;
      else if (s.startsWith('?=', this.i) || s.startsWith('?!', this.i)) [this.i, look] = [this.i + 2, true];
      else if (s.startsWith('?<=', this.i) || s.startsWith('?<!', this.i)) [this.i, look] = [this.i + 3, true];
      else if (s.startsWith('?<', this.i)) this.i = s.indexOf('>', this.i) + 1;
      const inner = this.alt();
      if (s[this.i] !== ')') throw new Error(`literals: unclosed group in /${s}/`);
      this.i++;
      return look ? empty() : inner;
    }
    if (c === '[') {
      let j = this.i + 1; // (in JS `[]` is an empty class and `[^]` any character: no special first `]`)
      while (j < s.length && s[j] !== ']') j += s[j] === '\\' ? 2 : 1;
      const body = s.slice(this.i + 1, j);
      this.i = j + 1;
      const chars = classChars(body);
      return chars ? { exact: new Set(chars), cond: TRUE } : any;
    }
    if (c === '\\') {
      const e = s[this.i + 1]!;
      this.i += 2;
      if (e === 'b') return { exact: new Set([B]), cond: TRUE };
      if (e === 'B') return empty();
      if ('wWsSdD'.includes(e) || /[1-9]/.test(e)) return any;
      let code: number;
      if (e === 'x') {
        code = parseInt(s.slice(this.i, this.i + 2), 16);
        this.i += 2;
      } else if (e === 'u') {
        code = parseInt(s.slice(this.i, this.i + 4), 16);
        this.i += 4;
      } else if (e === 'n') code = 10;
      else if (e === 't') code = 9;
      else if (e === 'r') code = 13;
      else if (/[a-z0-9]/i.test(e)) return any; // \c, \k, \p, \0…: not understood
      else code = e.charCodeAt(0);
      return code < 128 ? { exact: new Set([String.fromCharCode(code).toLowerCase()]), cond: TRUE } : any;
    }
    this.i++;
    if (c === '^' || c === '$') return empty();
    if (c === '.') return any;
    return c.charCodeAt(0) < 128 ? { exact: new Set([c.toLowerCase()]), cond: TRUE } : any;
  }
}

/**
 * A necessary condition for `re` to match somewhere in a text. Syntax the parser does not know yields TRUE
 * (no condition), or throws when `strict` (the tests check every rule regex parses).
 */
export function necessaryLiterals(re: RegExp, strict = false): Formula {
  // with `u`/`v`, case folding maps some non-ASCII letters to ASCII ones (ſ → s, K → k) and the syntax differs
  if (re.unicode || re.flags.includes('v')) {
    if (strict) throw new Error(`literals: /${re.source}/${re.flags} not supported`);
    return TRUE;
  }
  try {
    return condOf(new Parser(re.source).parse());
  } catch (e) {
    if (strict) throw e;
    return TRUE;
  }
}

/** Atom keys of a formula. */
export function atomsOf(f: Formula, out: Set<string> = new Set()): Set<string> {
  if (f.op === 'atom') out.add(f.key);
  else if (f.op === 'and' || f.op === 'or') for (const k of f.kids) atomsOf(k, out);
  return out;
}

/** Evaluates `f` given which atoms occurred. */
export function holds(f: Formula, seen: (key: string) => boolean): boolean {
  switch (f.op) {
    case 'true':
      return true;
    case 'atom':
      return seen(f.key);
    case 'and':
      return f.kids.every((k) => holds(k, seen));
    case 'or':
      return f.kids.some((k) => holds(k, seen));
  }
}
