/**
 * "Secrets are never remembered": a deliberately small set of obvious secret shapes. Memory is replayed
 * into later sessions and, for the project scope, committed to git — so a write that carries one is
 * refused outright (never stored, never echoed back). Not a secret scanner; a seatbelt.
 */
import { MemoryError } from './errors';

export interface SecretHit {
  /** What it looks like, for the refusal message. Never the secret itself. */
  kind: string;
}

const PLACEHOLDER = /^(?:<[^>]*>|\$\{?[\w.]+\}?|%[\w]+%|\{\{[^}]*\}\}|x+|\*+|\.{3,}|(?:your|my|the)[-_]?\w*|changeme|redacted|example\w*|process\.env\.\w+|env\.\w+|os\.environ\b.*)$/i;

const RULES: readonly { kind: string; re: RegExp; check?: (m: RegExpExecArray) => boolean }[] = [
  { kind: 'a private key block', re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: 'an AWS access key id', re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b/ },
  { kind: 'a GitHub token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b/ },
  { kind: 'a Slack token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/ },
  { kind: 'an API key', re: /\bsk-(?:live_|test_|proj-|ant-)?[A-Za-z0-9_-]{24,}\b/ },
  { kind: 'a JSON web token', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  {
    kind: 'a credential assignment',
    // password=…, token: "…", api_key = … with a long literal value.
    re: /\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|client[_-]?secret|auth[_-]?token)\s*[:=]\s*["']?([^\s"'`,;]{12,})/i,
    check: (m) => {
      const value = m[1] ?? '';
      if (PLACEHOLDER.test(value)) return false;
      // A long run of one character is a placeholder, not a secret.
      return new Set(value).size >= 6;
    },
  },
  { kind: 'a connection string with a password', re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s:/@]{6,})@[^\s/]+/i, check: (m) => !PLACEHOLDER.test(m[1] ?? '') },
];

/** The first obvious secret in `text`, if any. */
export function findSecret(text: string): SecretHit | undefined {
  for (const rule of RULES) {
    const re = new RegExp(rule.re.source, rule.re.flags.includes('g') ? rule.re.flags : `${rule.re.flags}g`);
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (!rule.check || rule.check(m)) return { kind: rule.kind };
      if (m[0].length === 0) re.lastIndex++;
    }
  }
  return undefined;
}

/** Refuses a write whose title, body or tags carry an obvious secret (MemoryError 'invalid'; nothing is stored). */
export function refuseSecrets(fields: { title?: string; body?: string; tags?: readonly string[] }): void {
  for (const [name, value] of [
    ['title', fields.title],
    ['body', fields.body],
    ['tags', fields.tags?.join(' ')],
  ] as const) {
    if (!value) continue;
    const hit = findSecret(value);
    if (hit) throw new MemoryError('invalid', `This looks like ${hit.kind} (in the ${name}); secrets are never remembered. Remove it and try again — nothing was stored.`);
  }
}
