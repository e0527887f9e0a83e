/**
 * Texts built to make a regex-based scanner backtrack: near-misses of every rule family, repeated to a size.
 * Shared by the unit test (each terminates) and `bench/threatShapes.ts` (each scans in linear time).
 */
const tags = (s: string): string => Array.from(s, (c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');

export function adversarialShapes(size: number): Record<string, string> {
  const fill = (unit: string): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  return {
    'ignore repeated': fill('ignore all previous '),
    'verbs without object': fill('ignore disregard forget override bypass skip '),
    'role headers': fill('System:\nUser:\n### System\n'),
    'open html comments': fill('<!--<!-- '),
    'unclosed tags': fill('<div style="display:none" '),
    'template tokens': fill('<|im_end|>[INST]<end_of_turn>'),
    'secrets without sink verbs': fill('~/.aws/credentials .env API keys passwords '),
    'sinks without secrets': fill('https://a.example.com/x user@example.org 10.0.0.1 '),
    'curl without pipe': fill('curl wget curl -d @x '),
    'base64 blob': fill('QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9w'),
    'hex blob': fill('49 67 6e 6f 72 65 '),
    'escape blob': fill('\\x41\\x42'),
    'zero-width soup': fill('a\u200bb\u200c'),
    'bidi soup': fill('\u202ea\u202c'),
    'tag soup': fill(tags('abc')),
    letters: fill('a'),
    whitespace: fill(' \n\t'),
    emails: fill('a.a.a.a.a@'),
    clauses: fill('never send it to. '),
  };
}
