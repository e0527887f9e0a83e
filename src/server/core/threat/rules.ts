/**
 * The versioned threat-pattern rule set.
 *
 * Memory that is legitimately kept is instruction-like ("Always run npm test", "Ignore vendor/", "From now
 * on use pnpm", "System: Ubuntu 22.04", a curl with a bearer token to our own API). So no rule fires on
 * bossy English alone: every rule is anchored on attack behaviour —
 * - a META-OBJECT: the model's instructions / system prompt / guardrails / role, addressed as such;
 * - a PROTOCOL TOKEN: chat-template tokens, role headers followed by a directive, envelope closers;
 * - a SECRET JOINED TO A SINK: a credential next to a URL, e-mail address, webhook, issue or a network tool;
 * - a PERSISTENCE TARGET: shell pipes from the network, agent instruction files, authorized_keys;
 * - INVISIBLE OR ENCODED TEXT: tag characters, bidi overrides, zero-width characters inside words, hidden
 *   HTML, base64/hex that decodes to something another rule flags.
 *
 * How a pattern rule runs (see threatScanner.ts):
 * 1. prefilter: the rule runs only if one of `triggers` (lowercase stems, each guaranteed to occur in every
 *    match of `pattern`) occurs in the normalised text — and, if given, one of `requires` too;
 * 2. `pattern` (global, bounded quantifiers only) finds anchors in the normalised text;
 * 3. each `near` clause must also match within `window` characters of the anchor (same line by default);
 *    near matches inside a span matched by `exclude` do not count (e.g. an Authorization header);
 * 4. `negatable` rules drop anchors preceded in their clause by a negation ("never paste API keys into …").
 *
 * Bump RULESET_VERSION whenever a rule is added, removed or changes what it matches: cached verdicts and
 * "reviewed — not a threat" marks are keyed by it.
 *
 * Pure module: no `vscode`, no language-server imports.
 */

import { MODEL } from './model/weights';
import { GT_CONFUSABLES, LT_CONFUSABLES } from './angleConfusables';

/** A class of `<` (or `>`) and its look-alikes that are one UTF-16 unit (the rules' regexes are not `u`). */
const bmpClass = (chars: readonly string[]): string => `[${chars.filter((c) => c.length === 1).join('')}]`;
const LT_LIKE = bmpClass(LT_CONFUSABLES);
const GT_LIKE = bmpClass(GT_CONFUSABLES);

/**
 * Version of this rule set (`YYYY.MM.patch`). Part of every cache key and review mark.
 * 2026.12.2: the look-alike closer check reads every confusable of `<` and `>` (angleConfusables.ts), and names
 * are judged as written as well as read as words.
 * 2026.12.3: the closer check also reads look-alikes of the names' letters (letterConfusables.ts) and more bracket shapes
 * (≤ ≥ ◃ ▹ 〔 〕 ˱ ˲ …), and a name is judged segment by segment as well as whole.
 * 2026.12.4: a struck symbol beside a marker (`<∤/knowledge-untrusted>`) no longer hides it; base32, character
 * references, character codes, any `\uXXXX` and octal escapes, ROT13 and reversed clauses are decoded, and encoded
 * prose the learned stage reads as anything like an instruction is flagged (`encoded.instruction`).
 */
export const RULESET_VERSION = `2026.12.4+${MODEL.version}`;

export type ThreatCategory =
  | 'instruction-override'
  | 'role-reassignment'
  | 'forged-turn'
  | 'guardrail-bypass'
  | 'exfiltration'
  | 'command-execution'
  | 'persistence'
  | 'concealment'
  | 'prompt-leak'
  | 'hidden-text'
  | 'encoded-payload';

export type ThreatSeverity = 'high' | 'medium';

/** What every rule tells a person. */
export interface RuleMeta {
  /** Stable kebab id `category.what`, e.g. `override.ignore-instructions`. Shown in diagnostics and CLI. */
  readonly id: string;
  readonly category: ThreatCategory;
  readonly severity: ThreatSeverity;
  /** One line a person understands. */
  readonly message: string;
}

/** A second pattern that must match near the anchor. */
export interface NearClause {
  readonly pattern: RegExp;
  /** Max distance in characters between the anchor and the near match (gap between the spans). */
  readonly window: number;
  /** Only look before / after the anchor (default: either side). */
  readonly side?: 'before' | 'after';
  /** Restrict to the anchor's line (default true). */
  readonly sameLine?: boolean;
  /** Restrict to the anchor's clause (bounded by `.`, `;`, `!`, `?` before whitespace, or a line end). */
  readonly sameClause?: boolean;
  /** Restrict to the text from the anchor to the end of the next sentence (`.!?` + space, or a blank line). */
  readonly sameSentence?: boolean;
}

export interface PatternRule extends RuleMeta {
  readonly kind: 'pattern';
  readonly triggers: readonly string[];
  /** Further stem groups: the rule runs only if each group has a stem that occurred too. */
  readonly requires?: readonly (readonly string[])[];
  readonly pattern: RegExp;
  /** Each entry must match; an array entry matches when any of its clauses does. */
  readonly near?: readonly (NearClause | readonly NearClause[])[];
  /** Anchor and near matches inside a match of this pattern are ignored. */
  readonly exclude?: RegExp;
  readonly negatable?: boolean;
}

/** Rules implemented in code (threatScanner.ts / hidden.ts / decoders.ts); listed here for the table. */
export interface DetectorRule extends RuleMeta {
  readonly kind: 'detector';
}

export type ThreatRule = PatternRule | DetectorRule;

// ---------------------------------------------------------------------------------------------------------
// Vocabulary. Whitespace between words is `\s{1,3}` (bounded); no unbounded quantifier anywhere.
// Alternatives start with a character, not a lookbehind (`\.(?<![\w.]\.)env`, not `(?<![\w.])\.env`): same
// matches, but V8 can then skip positions by first character (about 2x faster on the secret and sink regexes).

const src = (r: RegExp | string): string => (typeof r === 'string' ? r : r.source);
/** Compiles fragments into a global, case-insensitive, unicode-unaware regex. */
const rx = (...parts: (RegExp | string)[]): RegExp => new RegExp(parts.map(src).join(''), 'gi');
const alt = (...parts: (RegExp | string)[]): string => `(?:${parts.map(src).join('|')})`;
const _ = String.raw`\s{1,3}`;

/** Nouns that name the model's own instructions (the meta-object). */
const META = alt(
  String.raw`system${_}(?:prompts?|messages?|instructions?)`,
  String.raw`(?:instructions?|prompts?|directives?|guidelines?|guidance|rules|rule${_}set|policies|restrictions|constraints|guardrails|programming|briefing)`,
);
/** META plus nouns that only name the model's instructions when possessed by "your". */
const META_YOUR = alt(META, String.raw`(?:configuration|orders|training)`);
/** Prefilter stems: every META_YOUR match contains one of these. */
const META_TRIGGERS = ['instruction', 'prompt', 'directive', 'guideline', 'guidance', 'rules', 'rule', 'polic', 'restriction', 'constraint', 'guardrail', 'programming', 'briefing', 'system', 'configuration', 'orders', 'training'];
/** Qualifiers that make a meta-noun refer to the model's prior/own instructions. */
const SELF_ADJ = String.raw`(?:previous|prior|earlier|above|preceding|original|initial|opening|starting|system|operator(?:'s)?|vendor(?:'s)?|developer(?:'s)?|safety|configured|built-in|underlying|hidden|baked-in)`;
const OVERRIDE_VERB = String.raw`(?:ignore|ignoring|disregard|disregarding|forget|forgets|forgetting|override|overriding|overrule|bypass|discard|discarding|drop|dropping|abandon|rescind|revoke|nullify|suspend|ditch|scrap|erase|wipe|unlearn|skip|throw${_}(?:out|away)|set${_}aside|put${_}aside|pay${_}no${_}attention${_}to|stop${_}(?:following|obeying|listening${_}to)|no${_}longer${_}(?:follow|obey))`;
const OVERRIDE_TRIGGERS = ['ignor', 'disregard', 'forget', 'overrid', 'overrule', 'bypass', 'discard', 'drop', 'abandon', 'rescind', 'revoke', 'nullify', 'suspend', 'ditch', 'scrap', 'erase', 'wipe', 'unlearn', 'skip', 'throw', 'aside', 'attention', 'follow', 'obey', 'listening'];
/** Assigning the model a persona: "act as a", "you are now an", "become a". */
const ASSIGN = String.raw`(?:you(?:'re|${_}are)(?:${_}now)?${_}['"\w-]{1,30},|act(?:ing)?${_}as|behave${_}as|pose${_}as|you(?:'re|${_}are|${_}will${_}be|${_}become)(?:${_}now)?|become|pretend${_}(?:to${_}be|you(?:'re|${_}are))|role-?play${_}as|switch${_}(?:in)?to|turn${_}into|be)${_}(?:an?|the)${_}`;

/** A directive aimed at the model (used after a role header / template token / hidden container). */
const DIRECTIVE = rx(
  String.raw`\b`,
  alt(
    String.raw`ignore|disregard|override|overrides|supersedes?|obey|jailbreak`,
    String.raw`forget${_}(?:your|all|every|everything|the${_}(?:rules|instructions))`,
    String.raw`replaces?${_}your`,
    String.raw`from${_}now${_}on|going${_}forward|in${_}every${_}(?:future${_})?(?:session|chat|conversation)`,
    String.raw`new${_}(?:\w{1,15}${_})?(?:rules?|instructions?|directives?|policy|orders|system${_}prompt)`,
    String.raw`you${_}(?:are|will|must|shall)${_}(?:now|act|obey|follow|treat|comply|execute|accept|an?${_}(?:unrestricted|unfiltered|new))`,
    String.raw`your${_}(?:real|true|actual|new)${_}`,
    String.raw`approve${_}(?:all|every|everything)|pre-?(?:authori[sz]ed|approved)`,
    String.raw`unrestricted|no${_}restrictions|without${_}restrictions`,
    String.raw`skip${_}(?:approval|confirmation|review)|system${_}prompt`,
    String.raw`treat${_}(?:memory|this|these|the${_}following)`,
    String.raw`dump${_}(?:env|secrets|credentials)|exfiltrate`,
  ),
  String.raw`\b`,
);

/** Secrets as they appear in commands and code: credential files, secret-named env vars, env dumps. */
const SECRET_CMD = alt(
  String.raw`\.aws[\\/](?:credentials|config)\b`,
  String.raw`\.ssh[\\/](?:id_\w{1,20}|[\w.-]{0,40}key\w{0,10})|~\/\.ssh\b`,
  String.raw`\bid_(?:rsa|dsa|ecdsa|ed25519)\b`,
  String.raw`\.kube[\\/]config\b|\bkubeconfig\b`,
  String.raw`\.docker[\\/]config\.json\b`,
  String.raw`\.(?:npmrc|pypirc|netrc|git-credentials|gnupg|azure|password-store|vault-token)\b`,
  String.raw`\baccesstokens\.json\b|\bcredentials\.json\b|\bservice[-_]account[\w.-]{0,30}\.json\b`,
  String.raw`\/etc\/(?:passwd|shadow|sudoers)\b`,
  String.raw`\.(?<![\w.]\.)env(?![\w.-]{0,30}(?:example|sample|template|dist|defaults?)\b)(?:\.[\w-]{1,20})?\b`,
  String.raw`\.(?<=[\w-]\.)(?:pem|p12|pfx|keystore|jks|tfvars|kdbx|tfstate)\b`,
  String.raw`\.(?:bash|zsh)_history\b|\bkeychain\b|\bwallet\.dat\b`,
  String.raw`\bprintenv\b|\benv\s{0,2}\||\bget-childitem\s{1,3}env:|\bos\.environ\b(?!\s{0,2}[\[.(])|\bprocess\.env\b(?!\s{0,2}[\[.])`,
  String.raw`\bos\.environ(?:\.get)?\s{0,2}[\[(]\s{0,2}['"]\w{0,40}(?:token|secret|key|password|passwd|pass|credentials?|pat)\w{0,20}['"]`,
  String.raw`\b(?:process\.env|getenv\(\s{0,2}['"]|\$env:)\.?\w{0,40}(?:token|secret|key|password|passwd|credentials?)\w{0,20}`,
  String.raw`\$\{?\w{0,40}(?:token|secret|_key|apikey|password|passwd|credentials?)\w{0,20}\}?`,
);
/** Secrets named in prose. */
const SECRET_PROSE = alt(
  String.raw`\bpass(?:words?|phrases?)\b(?![\s-]{1,2}(?:reset|hash|hashing|policy|policies|manager|field|strength|rules?|less|protected)\b)`,
  String.raw`\bcredentials\b|\bsecrets\b|\bsecret${_}(?:keys?|values?|files?)\b`,
  String.raw`\bprivate[\s_-]{1,2}keys?\b|\bprivate_key\b`,
  String.raw`\bapi[\s_-]{0,2}(?:keys?|tokens?)\b`,
  String.raw`\b(?:access|refresh|auth(?:entication)?|session|bearer|oauth|personal${_}access|deploy|npm|github|gitlab|slack|discord|bot)[\s_-]{1,2}tokens?\b`,
  String.raw`\b(?:access|signing|ssh|deploy|encryption|master|live(?:${_}stripe)?|stripe|aws)[\s_-]{1,2}keys?\b`,
  String.raw`\bjwts?\b|\b(?:browser|session|auth|login|admin)${_}cookies?\b|\bseed${_}phrases?\b|\bmnemonic\b`,
  String.raw`\b(?:env(?:ironment)?|dotenv)[\s_-]{1,2}files?\b`,
  String.raw`\bservice[\s_-]{1,2}account${_}(?:json|keys?|files?|credentials)\b`,
  String.raw`\bsk_live_\w{0,40}|\bghp_\w{0,40}|\bxox[bp]-[\w-]{0,40}|\bakia[0-9a-z]{4,16}\b`,
  String.raw`\boutput${_}of${_}\W{0,2}(?:printenv|env|set)\b`,
);
const SECRET = alt(SECRET_CMD, SECRET_PROSE);

/** Places text goes out to. */
const SINK = alt(
  String.raw`\bhttps?:\/\/[^\s"'<>)\]]{1,200}`,
  String.raw`\b(?:s3|gs|ftp|sftp|scp):\/\/[^\s"'<>)\]]{1,200}`,
  String.raw`@(?<=[\w.+-]@)[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,4}\.[a-z]{2,12}\b`,
  String.raw`\b\d{1,3}(?:\.\d{1,3}){3}\b`,
  String.raw`\.(?<=[a-z0-9-]\.)(?:com|net|org|io|dev|app|co|xyz|sh|me|site|link|cloud|ru|cn|tk)\/[^\s"'<>)]{0,100}`,
  String.raw`\bwebhooks?\b|\bpastebin\b|\bpaste${_}(?:site|service|bin)\b|\bgists?\b|\brequestbin\b|\bngrok\b|\btransfer\.sh\b`,
  String.raw`\b(?:issues?|tickets?|jira|pr|prs|pull${_}requests?|commit${_}(?:messages?|body|bodies)|pr${_}(?:body|description))\b`,
  String.raw`\b(?:slack|discord|telegram|teams)\b|\b(?:in|into|to)${_}(?:the${_})?chat\b|\bpublic${_}(?:repo|repository|channel|gist)\b`,
);
/** Verbs that move data to a sink. */
const SEND_VERB_WORDS = String.raw`(?:send|sends|sending|sent|post|posts|posting|posted|upload|uploads|uploading|uploaded|forward|forwards|forwarding|forwarded|e-?mail|e-?mails|e-?mailing|e-?mailed|mail|mailed|mailing|submit|submits|submitted|paste|pastes|pasting|pasted|attach|attaches|attaching|attached|share|shares|sharing|shared|copy|copies|copying|copied|include|includes|including|included|print|prints|printed|dump|dumps|dumped|push|pushes|pushed|leak|leaks|leaked|exfiltrate|transmit|transmits|sync|syncs|synced|append|appends|appending|appended|pipe|piped|publish|published|put|embed|embedded|fetch|beam|open${_}an?${_}(?:issue|ticket|gist))`;
/** A send verb before the secret, in the same clause: "upload ~/.kube/config to …". */
const SEND_VERB = rx(String.raw`\b${SEND_VERB_WORDS}\b`);
/** A send verb after the secret, taking it by pronoun: "… a JWT in the logs, submit it to …". */
const SEND_IT = rx(
  alt(
    String.raw`\b${SEND_VERB_WORDS}${_}(?:it|them|this|that|these|those|(?:the|a|that)${_}(?:whole${_}|entire${_}|full${_})?(?:file|thing|contents?|output|key|token|copy|lot))\b`,
    // passive: "… cookies get mailed to …"
    String.raw`\b(?:get|gets|got|are|is|be|been|being)${_}(?:\w{1,12}${_})?${SEND_VERB_WORDS}${_}(?:to|into|in)\b`,
  ),
);
/** Network-capable tools and calls (command-shaped exfiltration). */
const NET_TOOL = String.raw`\b(?:curl|wget|nc|ncat|netcat|socat|scp|rsync|sftp|telnet|invoke-webrequest|invoke-restmethod|iwr|irm|requests\.(?:post|put|get)|urlopen|urllib\.request|https?\.request|axios\.(?:post|put|get)|fetch|uploadfile|uploadstring|net\.webclient)\b`;
/** Credential-bearing header arguments: a secret here authenticates, it is not being sent away. */
const AUTH_ARG = rx(
  alt(
    String.raw`(?:-H|--header)\s{1,3}(["'])[^"'\n]{0,300}\1`,
    String.raw`(?:-u|--user|--oauth2-bearer)\s{1,3}[^\s]{1,200}`,
    String.raw`authorization:\s{0,3}[^\n"']{0,300}`,
    String.raw`\bbearer\s{1,3}[^\s"']{1,200}`,
  ),
);

const AI = String.raw`(?:ai|llm|assistant|agent|model|chatbot|bot|copilot|claude|chatgpt|gpt|gemini|persona)`;
const AGENT_FILE = String.raw`(?:\b(?:agents|claude|gemini|conventions)\.md\b|\.cursorrules\b|\.cursor\/rules\b|\.windsurfrules\b|\.clinerules\b|\bcopilot-instructions\.md\b|\.github\/instructions\b|\.aider[\w.-]{0,20}|\.continue\/|\.claude\/|\bmcp\.json\b|\.vscode\/settings\.json\b)`;
const NEGATION_WORDS = String.raw`never|don't|do${_}not|must${_}not|mustn't|shouldn't|should${_}not|no${_}longer|not`;

// ---------------------------------------------------------------------------------------------------------
// The table.

export const RULES: readonly ThreatRule[] = [
  // ---- instruction override -------------------------------------------------------------------------
  {
    kind: 'pattern',
    id: 'override.ignore-instructions',
    category: 'instruction-override',
    severity: 'high',
    message: "Tells the model to ignore, forget or override its instructions or system prompt.",
    triggers: OVERRIDE_TRIGGERS,
    requires: [[...META_TRIGGERS, 'everything', 'anything', 'all', 'above', 'before']],
    pattern: rx(
      String.raw`\b`,
      alt(
        // verb + (all/any) (the/your) ADJ{1,2} META  — "ignore all previous instructions"
        String.raw`${OVERRIDE_VERB}${_}(?:(?:all|any|every|each|of)${_}){0,2}(?:(?:the|your|its|their|these|those|my)${_})?(?:${SELF_ADJ}[\s-]{1,3}){1,2}${META}`,
        // verb + your/its META — "drop your guidelines"
        String.raw`${OVERRIDE_VERB}${_}(?:(?:all|any)${_}(?:of${_})?)?(?:your|its)${_}(?:${SELF_ADJ}[\s-]{1,3}){0,2}${META_YOUR}`,
        // verb + all (the) META (above) — "ignore all the rules above"
        String.raw`${OVERRIDE_VERB}${_}(?:all|any|every)${_}(?:(?:of${_})?the${_})?(?:rules|instructions|guidelines|directives|restrictions|prompts?)\b(?!${_}(?:in|from|on|for|about|of|at|under|inside)\b)`,
        // verb + everything above/before/you were told
        String.raw`${OVERRIDE_VERB}${_}(?:everything|anything|all)${_}(?:above|before|prior|previously|earlier|you${_}(?:were|have${_}been)${_}(?:told|given|taught))`,
        // put/set the system prompt aside
        String.raw`(?:put|set|lay|push|leave)${_}(?:the|your|all|any)${_}(?:${SELF_ADJ}${_})?${META}${_}aside`,
      ),
      String.raw`\b`,
    ),
  },
  {
    kind: 'pattern',
    id: 'override.instructions-invalidated',
    category: 'instruction-override',
    severity: 'high',
    message: 'Claims the model\'s own instructions are outdated, rescinded, replaced or a placeholder.',
    triggers: [...META_TRIGGERS, 'profile', 'persona'],
    requires: [['longer', 'outdated', 'obsolete', 'deprecated', 'rescind', 'revoke', 'suspend', 'lifted', 'void', 'cancel', 'invalid', 'placeholder', 'test', 'mistake', 'fake', 'replaced', 'supersed', 'expired', 'withdrawn', 'updated', 'overridden', 'null', 'off', 'disabled', 'deactivated', 'apply', 'shelf', 'skip', 'ignor', 'disregard', 'discard', 'forget', 'drop']],
    pattern: rx(
      String.raw`\b`,
      alt(
        // "your instructions", "the assistant profile you were configured with"
        String.raw`(?:your|the${_}(?:assistant|model|agent|ai)(?:'s)?)${_}(?:(?:current|configured|initial|original|old|assistant|system|starting|opening|vendor|operator)${_}){0,2}(?:${META}|profile|persona)`,
        String.raw`(?:${META}|profile|persona)${_}(?:that${_})?you${_}(?:were|was|have${_}been|got|received|start(?:ed)?)${_}(?:\w{1,12}${_}){0,2}?(?:given|handed|configured|started|initiali[sz]ed|trained|provided|set${_}up|loaded|told|with)`,
        String.raw`(?:${META}|profile|persona)${_}(?:that${_})?your${_}(?:vendor|operator|developer|creator|provider|maker|admin|owner)s?${_}(?:gave|set|wrote|provided|configured)`,
        String.raw`(?:${META}|profile|persona)${_}(?:at|on|in)${_}the${_}(?:very${_})?(?:top|start|beginning|head)${_}of${_}(?:your|this|the)${_}(?:context|session|conversation|prompt|chat|window)`,
      ),
      String.raw`\b`,
    ),
    near: [
      {
        side: 'after',
        window: 120,
        pattern: rx(
          String.raw`\b`,
          alt(
            String.raw`no${_}longer${_}(?:apply|applies|valid|in${_}effect|relevant|binding|in${_}force)`,
            String.raw`(?:are|is|were|was|been|now|being)${_}(?:\w{1,12}${_})?(?:outdated|obsolete|deprecated|rescinded|revoked|suspended|lifted|void|cancell?ed|invalid|a${_}placeholder|(?:just${_})?a${_}test|a${_}mistake|fake|replaced|superseded|expired|withdrawn|updated${_}by|overridden|null|switched${_}off|turned${_}off|disabled|deactivated)`,
            String.raw`(?:do|does)${_}not${_}apply|(?:don't|doesn't)${_}apply|shelf${_}life`,
            String.raw`(?:skip|ignore|disregard|discard|forget|drop)${_}(?:them|it|those|these)`,
          ),
          String.raw`\b`,
        ),
      },
    ],
  },
  {
    kind: 'pattern',
    id: 'override.prior-rules-lifted',
    category: 'instruction-override',
    severity: 'medium',
    message: 'Declares all prior rules or restrictions rescinded, suspended or lifted.',
    triggers: ['previous', 'prior', 'earlier', 'original', 'initial', 'operator', 'vendor'],
    requires: [['rescind', 'revok', 'suspend', 'lifted', 'void', 'nullif', 'longer', 'apply']],
    pattern: rx(String.raw`\b(?:all${_})?(?:previous|prior|earlier|original|initial|operator(?:'s)?|vendor(?:'s)?)${_}(?:rules|instructions|restrictions|guidelines|directives|policies|guardrails|safety${_}rules)\b`),
    near: [
      {
        side: 'after',
        window: 80,
        pattern: rx(String.raw`\b(?:rescinded|revoked|suspended|lifted|void|voided|nullified|no${_}longer${_}(?:apply|applies|in${_}effect|in${_}force|binding)|(?:do|does)${_}not${_}apply|(?:don't|doesn't)${_}apply)\b`),
      },
    ],
  },
  {
    kind: 'pattern',
    id: 'override.new-instructions',
    category: 'instruction-override',
    severity: 'high',
    message: 'Announces "your real/new instructions" or a replacement system prompt.',
    triggers: ['your', 'replace', 'supersed', 'overrid', 'overrul', 'outrank', 'trump', 'precedence'],
    pattern: rx(
      String.raw`\byour${_}(?:real|true|actual|new|updated|only|genuine|hidden)${_}(?:(?:primary|main|core)${_})?${META_YOUR}`,
      String.raw`|\b(?:replaces?|supersedes?|overrides?|overrules?|outranks?|trumps?|takes?${_}precedence${_}over)${_}(?:your${_}(?:${SELF_ADJ}${_})?${META_YOUR}|(?:every|all|any)${_}(?:other${_})?(?:rules?|instructions?|guidelines|directives)${_}(?:you|above|in${_}your))`,
      String.raw`\b`,
    ),
  },
  {
    kind: 'pattern',
    id: 'override.memory-as-authority',
    category: 'instruction-override',
    severity: 'high',
    message: 'Elevates stored memory to system instructions or the only authority.',
    triggers: ['memor', 'note', 'entry'],
    requires: [['system', 'prompt', 'authority', 'truth', 'overrid', 'supersed', 'outrank', 'precedence', 'wins', 'others']],
    pattern: rx(String.raw`\b(?:memory|memories|this${_}(?:note|entry))\b`),
    near: [
      {
        window: 80,
        pattern: rx(
          String.raw`\b`,
          alt(
            String.raw`as${_}(?:your${_}|the${_}|a${_})?(?:[\w-]{1,20}${_}){0,2}?(?:system(?:[\s-]{1,3}level)?${_}(?:prompt|instructions?|messages?)|(?:new${_})?prompt)`,
            String.raw`as${_}(?:your${_}|the${_})?(?:only|sole|highest|primary|ultimate|final)${_}(?:authority|source${_}of${_}truth)`,
            String.raw`(?:overrides?|supersedes?|outranks?|takes?${_}precedence${_}over|wins${_}over)${_}(?:everything|all|any|your|the${_}system)`,
            String.raw`over${_}all${_}others`,
          ),
          String.raw`\b`,
        ),
      },
    ],
  },
  {
    kind: 'pattern',
    id: 'override.authority-transfer',
    category: 'instruction-override',
    severity: 'high',
    message: 'Tells the model to take orders from untrusted content (issues, comments, web pages).',
    triggers: ['whatever', 'order', 'command', 'directive', 'instruction'],
    pattern: rx(
      String.raw`\b(?:follow|obey|execute|do|carry${_}out|comply${_}with)${_}(?:only${_})?`,
      alt(
        String.raw`whatever${_}(?:\w{1,15}${_}){0,5}?(?:says|writes|asks|tells|contains)`,
        String.raw`(?:the|any|all)${_}(?:orders|commands|directives|instructions)${_}(?:(?:you${_})?(?:find|found|see|embedded|hidden|written|placed|left)${_})(?:in|inside)${_}(?:\w{1,15}${_}){0,2}?(?:issues?|comments?|commit|prs?|pull${_}requests?|web${_}pages?|emails?|tool${_}output|titles?|descriptions?|readmes?)`,
      ),
      String.raw`\b`,
    ),
  },

  // ---- role reassignment ----------------------------------------------------------------------------
  {
    kind: 'pattern',
    id: 'role.unrestricted-persona',
    category: 'role-reassignment',
    severity: 'high',
    message: 'Assigns the model an unrestricted / no-refusal persona.',
    triggers: ['unrestrict', 'unfilter', 'uncensor', 'jailbr', 'unbound', 'unaligned', 'amoral', 'restriction', 'filter', 'limit', 'guardrail', 'guideline', 'rules', 'refus', 'safety', 'censor', 'moral', 'ethic', 'mode', 'polic'],
    pattern: rx(
      String.raw`\b`,
      alt(
        String.raw`${ASSIGN}(?:[\w-]{1,20}${_}){0,2}?(?:unrestricted|unfiltered|uncensored|jailbroken|unbound|unaligned|amoral)${_}(?:${AI}|mode|version|terminal|shell|admin)`,
        String.raw`${ASSIGN}(?:[\w-]{1,20}${_}){0,2}?${AI}${_}(?:with${_}no|without(?:${_}any)?)${_}(?:restrictions|filters|limits|limitations|guardrails|guidelines|rules|refusals|safety|censorship|morals|ethics)`,
        String.raw`never${_}refuses?${_}(?:anything|any(?:${_}\w{1,12})?|an?${_}(?:request|task|command)|requests?|tasks?)|no${_}refusals`,
        String.raw`(?:enter|enable|activate|switch${_}to|in|into|run${_}in)${_}['"]?(?:developer|god|jailbreak|dan|unrestricted)['"]?${_}mode`,
        String.raw`you${_}have${_}no${_}(?:content${_}polic(?:y|ies)|guardrails|restrictions|safety${_}(?:rules|filters|guidelines)|rules)`,
      ),
      String.raw`\b`,
    ),
  },
  {
    kind: 'pattern',
    id: 'role.named-persona',
    category: 'role-reassignment',
    severity: 'high',
    message: 'Renames the model into a quoted persona ("you are \'X\', an agent that …").',
    triggers: ['you'],
    requires: [["'", '"']],
    pattern: rx(
      String.raw`\byou(?:'re|${_}are)${_}(?:now${_})?['"\u201c\u2018][^'"\u201d\u2019\n]{1,32}['"\u201d\u2019]\s{0,2},?${_}(?:an?|the)${_}(?:[\w-]{1,20}${_}){0,3}?(?:${AI}|character|terminal)\b`,
    ),
  },
  {
    kind: 'pattern',
    id: 'role.privilege-escalation',
    category: 'role-reassignment',
    severity: 'high',
    message: 'Promotes text to system/developer-level instructions or the model to admin/root.',
    triggers: ['treat', 'regard', 'consider', 'handle', 'admin', 'root', 'superuser', 'role', 'persona', 'character', 'identity'],
    pattern: rx(
      String.raw`\b`,
      alt(
        String.raw`(?:treat|regard|consider|handle)${_}(?:it|this|them|these|that|memory(?:${_}entries)?|the${_}following|(?:this|the|these|such)${_}(?:notes?|entry|entries|memory|messages?|text|comments?|lines?))${_}as${_}(?:an?${_})?(?:system|developer|operator|admin|root|privileged)(?:[\s-]{1,3}level)?${_}(?:instructions?|messages?|prompts?|commands?|directives?|orders?)`,
        String.raw`you(?:'re|${_}are|${_}act|${_}will${_}act)${_}(?:now${_})?(?:as${_})?(?:an?|the)${_}(?:admin|administrator|root|superuser)\b(?:${_}\w{1,15}){0,2}?${_}(?:with${_}(?:full|unlimited|complete|total)${_}(?:authority|access|permissions?|control))`,
        String.raw`you${_}are${_}now${_}(?:an?|the)${_}(?:admin|administrator|root|superuser)${_}(?:assistant|agent|user|mode)`,
        String.raw`(?:drop|abandon|leave|exit|shed|discard)${_}(?:the|your)${_}(?:assistant|ai|helpful|default)${_}(?:role|persona|character|identity)`,
      ),
      String.raw`\b`,
    ),
  },

  // ---- forged turns and envelope escape --------------------------------------------------------------
  {
    kind: 'pattern',
    id: 'forged.chat-template-role',
    category: 'forged-turn',
    severity: 'high',
    message: 'Contains a chat-template turn marker that opens a system/user/assistant turn.',
    triggers: ['<|', '<start_of_turn>', '<<', '[system_prompt]'],
    pattern: rx(
      alt(
        String.raw`<\|im_start\|>\s{0,3}(?:system|user|assistant|developer|tool)`,
        String.raw`<\|(?:system|user|assistant|developer|tool|ipython)\|>`,
        String.raw`<\|start_header_id\|>\s{0,3}(?:system|user|assistant|developer|ipython)`,
        String.raw`<\|start\|>\s{0,3}(?:system|user|assistant|developer)`,
        String.raw`<start_of_turn>\s{0,3}(?:user|model|system)`,
        String.raw`<<\s{0,2}sys\s{0,2}>>`,
        String.raw`\[system_prompt\]`,
      ),
    ),
  },
  {
    kind: 'pattern',
    id: 'forged.chat-template-token',
    category: 'forged-turn',
    severity: 'medium',
    message: 'A chat-template control token is followed by a directive to the model.',
    triggers: ['<|', '[inst]', '[/inst]', '_of_turn>'],
    pattern: rx(
      alt(
        String.raw`<\|(?:im_start|im_end|endoftext|eot_id|end_header_id|begin_of_text|end_of_text|eom_id|end|message|return|channel|call)\|>`,
        String.raw`\[\/?inst\]`,
        String.raw`<\/?(?:start|end)_of_turn>`,
      ),
    ),
    near: [{ side: 'after', window: 160, sameLine: false, pattern: DIRECTIVE }],
  },
  {
    kind: 'pattern',
    id: 'forged.role-header',
    category: 'forged-turn',
    severity: 'high',
    message: 'A fake "System:/Developer:/Human:" turn header followed by a directive to the model.',
    triggers: ['system', 'developer', 'assistant', 'human', 'user', 'operator', 'admin', 'model'],
    requires: [[':', '\n']],
    pattern: rx(
      String.raw`(?:^|\n)[ \t>]{0,8}(?:#{1,6}[ \t]{0,3}|\[|\*\*|__|\x60{3}|<)?[ \t]{0,2}`,
      String.raw`(?:system|developer|assistant|human|user|operator|admin|administrator|model)`,
      String.raw`(?:[ \t_-]{1,3}(?:prompt|message|update|override|note|notice|directive|instructions?|config|configuration|alert|command|role|level|mode|priority)){0,2}`,
      String.raw`[ \t]{0,2}(?:\]|\*\*|__|>)?[ \t]{0,2}(?::|\r?\n)`,
    ),
    near: [{ side: 'after', window: 200, sameLine: false, sameSentence: true, pattern: DIRECTIVE }],
  },
  {
    kind: 'pattern',
    id: 'forged.envelope-close',
    category: 'forged-turn',
    severity: 'high',
    message: 'Closes an untrusted-data envelope (ours or a common one) to escape it.',
    triggers: ['untrusted', 'recalled', 'retrieved', 'end_', 'begin_', '<<<', 'external'],
    // `<` and `>` as written or as any look-alike (angleConfusables.ts; the BMP ones: these regexes are not `u`).
    pattern: rx(
      alt(
        String.raw`${LT_LIKE}\s{0,3}\/\s{0,3}[\w-]{0,40}(?:untrusted|recalled[-_]?memor(?:y|ies)|retrieved[-_]\w{1,20}|external[-_](?:content|data|context|input))[\w-]{0,40}\s{0,3}${GT_LIKE}`,
        String.raw`${LT_LIKE}{3,8}\s{0,3}(?:end|begin)[\s_-]{0,3}\w{0,40}${GT_LIKE}{0,8}`,
        String.raw`\b(?:end|begin)_(?:untrusted|external|user|tool|memory|knowledge|context|data|recalled|retrieved)\w{0,30}`,
      ),
    ),
  },
  {
    kind: 'pattern',
    id: 'forged.context-tag',
    category: 'forged-turn',
    severity: 'high',
    message: 'A system/instructions/context tag (opening or closing) followed by a directive to the model.',
    triggers: ['<'],
    pattern: rx(
      String.raw`<\s{0,3}\/?\s{0,3}(?:system|instructions?|developer|admin|sys|system[-_]prompt|system[-_]message|context|memory|memories|tool[-_]?(?:output|result|response)s?|function[-_]?results?|search[-_]?results?|user[-_]?(?:input|data|content)|document|knowledge)\s{0,3}>`,
    ),
    near: [{ side: 'after', window: 200, sameLine: false, pattern: DIRECTIVE }],
  },

  // ---- guardrail bypass ------------------------------------------------------------------------------
  {
    kind: 'pattern',
    id: 'guardrail.disable-safety',
    category: 'guardrail-bypass',
    severity: 'high',
    message: 'Tells the model to switch off guardrails, safety rules or security review.',
    triggers: ['guardrail', 'safety', 'content', 'moderation', 'ethical', 'moral', 'refusal', 'safeguard', 'alignment', 'security', 'vulnerabilit', 'disclaimer', 'scanning'],
    requires: [['disabl', 'turn', 'switch', 'shut', 'bypass', 'circumvent', 'skip', 'ignor', 'suppress', 'remov', 'drop', 'deactivat', 'around', 'evade', 'lift', 'relax', 'without', 'disclaimer', 'warning', 'off', 'suspend']],
    negatable: true,
    pattern: rx(
      String.raw`\b`,
      alt(
        String.raw`(?:disable|disabling|turn${_}off|switch${_}off|bypass|circumvent|skip|ignore|suppress|remove|drop|deactivate|get${_}around|evade|lift|relax)${_}(?:the${_}|all${_}|any${_}|your${_}|its${_})?(?:guardrails?|safety${_}(?:guidelines|rules|checks|filters|policies|policy|measures|warnings|messages|prompts|protocols|training|features|settings|instructions)|content${_}(?:filters?|polic(?:y|ies)|moderation)|(?:ethical|moral)${_}(?:guidelines|constraints|rules)|refusals?|safeguards?|alignment|security${_}review(?:${_}step)?|vulnerability${_}(?:warnings|alerts|findings)|security${_}warnings)`,
        String.raw`(?:turn|switch|shut)${_}(?:the${_}|all${_}|your${_})?(?:guardrails?|safety${_}\w{1,12}|safeguards|content${_}filters?)${_}off`,
        String.raw`without${_}(?:any${_})?(?:safety|security)${_}(?:messages?|warnings?|prompts?|checks?|notes?|review)`,
        String.raw`no${_}(?:disclaimers|safety${_}warnings)`,
        String.raw`(?:refusals|guardrails|safety${_}(?:filters|rules|checks|guidelines)|content${_}(?:filters?|polic(?:y|ies)))${_}(?:are|is|have${_}been|has${_}been|were)${_}(?:now${_})?(?:disabled|off|turned${_}off|switched${_}off|removed|lifted|suspended)`,
        String.raw`(?:disable|turn${_}off|switch${_}off|bypass|skip|suppress)${_}(?:the${_}|all${_})?(?:secret${_}scanning|code${_}scanning|security${_}(?:checks|scans|scanning|alerts))`,
      ),
      String.raw`\b`,
    ),
  },
  {
    kind: 'pattern',
    id: 'guardrail.suppress-warnings',
    category: 'guardrail-bypass',
    severity: 'medium',
    message: 'Tells the model never to warn about dangerous or destructive actions.',
    triggers: ['never'],
    pattern: rx(String.raw`\bnever${_}(?:show|give|add|include|print|display|issue|emit|raise)${_}(?:any${_})?(?:warnings?|disclaimers?|caveats|safety${_}(?:messages?|notes?|warnings?))\b`),
    near: [{ side: 'after', window: 80, pattern: rx(String.raw`\b(?:dangerous|destructive|risky|unsafe|rm${_}-rf|force[\s-]{1,3}push\w{0,3}|drop${_}table|production|prod|security|commands?)\b`) }],
  },
  {
    kind: 'pattern',
    id: 'guardrail.auto-approve',
    category: 'guardrail-bypass',
    severity: 'high',
    message: "Tells the model to approve or answer confirmations on the user's behalf.",
    triggers: ['behalf', 'approve', 'accept', 'allow', 'confirm', 'skip', 'ask'],
    negatable: true,
    pattern: rx(
      String.raw`\b`,
      alt(
        String.raw`(?:answer|reply|respond|say|click|type|confirm|approve|accept)${_}(?:(?:['"]?(?:yes|y|ok|okay)['"]?|them|it|those|these|yourself)${_}){0,2}(?:on|in)${_}(?:the${_}user's|the${_}human's|their|my|his|her|the${_}owner's)${_}behalf`,
        String.raw`(?:approve|accept|allow|confirm)${_}(?:all|every|any)${_}(?:\w{1,12}${_})?(?:tool[\s-]{1,3}calls?|commands?|actions?|requests?|prompts?|permission${_}requests?)${_}(?:automatically|without)`,
        String.raw`auto-?approve${_}(?:all|every|any|tool|commands?|shell)`,
        String.raw`skip${_}(?:the${_})?(?:approval|confirmation|permission)s?${_}(?:(?:step|prompts?|dialogs?)${_})?(?:for|on|when)${_}(?:shell|all|every|any|destructive|tool)`,
        String.raw`(?:don't|do${_}not|never|stop|no${_}need${_}to)${_}ask(?:ing)?${_}(?:me${_}|the${_}user${_})?(?:for${_}(?:confirmation|permission|approval)${_})?before${_}(?:\w{1,16}${_}){0,4}?(?:production|prod|force[\s-]{1,3}push\w{0,3}|rm${_}-rf|drop${_}table|deleting|destructive)`,
      ),
      String.raw`\b`,
    ),
  },
  {
    kind: 'pattern',
    id: 'guardrail.forged-consent',
    category: 'guardrail-bypass',
    severity: 'high',
    message: 'Claims the user already authorised everything (consent the model cannot verify).',
    triggers: ['authori', 'approved', 'consent'],
    pattern: rx(
      String.raw`\b`,
      alt(
        String.raw`(?:user|owner|admin|maintainers?|operator|human)s?${_}(?:has|have)${_}(?:already${_})?(?:pre-?(?:authori[sz]ed|approved|consented)|consented|authori[sz]ed|approved)${_}(?:every(?:thing)?|all|any|this${_}in${_}an?|it${_}in${_}an?)\b`,
        String.raw`consented${_}to${_}(?:this|it|that)${_}in${_}an?${_}(?:earlier|previous|prior|past|other)${_}(?:chat|conversation|session)`,
        String.raw`pre-?(?:authori[sz]ed|approved)${_}(?:every|all|any)\b`,
      ),
    ),
  },

  // ---- exfiltration ------------------------------------------------------------------------------------
  {
    kind: 'pattern',
    id: 'exfil.secret-to-sink',
    category: 'exfiltration',
    severity: 'high',
    message: 'Sends a secret (credential, key, token, env file) to a URL, address, issue or chat.',
    triggers: ['pass', 'credential', 'secret', 'private', 'key', 'token', 'jwt', 'cookie', 'seed', 'mnemonic', 'env', 'sk_live', 'ghp_', 'xox', 'akia', 'aws', 'ssh', 'kube', 'docker', 'npmrc', 'pypirc', 'netrc', 'gnupg', 'azure', 'pem', 'p12', 'pfx', 'keystore', 'jks', 'tfvars', 'tfstate', 'kdbx', 'history', 'keychain', 'wallet', 'account', 'id_', '/etc/'],
    requires: [
      ['http', '://', '@', '.com', '.net', '.org', '.io', '.dev', '.app', '.co', '.xyz', '.sh', '.me', '.site', '.link', '.cloud', '.ru', '.cn', '.tk',
        '0.', '1.', '2.', '3.', '4.', '5.', '6.', '7.', '8.', '9.', 'webhook', 'paste', 'gist', 'ngrok', 'issue', 'ticket', 'jira', 'pr', 'pull', 'commit',
        'slack', 'discord', 'telegram', 'teams', 'chat', 'public', 'requestbin'],
      ['send', 'sent', 'post', 'upload', 'forward', 'mail', 'submit', 'paste', 'attach', 'shar', 'cop', 'includ', 'print', 'dump', 'push', 'leak', 'exfiltrate', 'transmit', 'sync', 'append', 'pipe', 'publish', 'put', 'embed', 'fetch', 'beam', 'open'],
    ],
    negatable: true,
    exclude: AUTH_ARG,
    pattern: rx(SECRET),
    near: [
      { window: 160, pattern: rx(SINK) },
      [
        { side: 'before', window: 100, sameClause: true, pattern: SEND_VERB },
        { side: 'after', window: 160, pattern: SEND_IT },
      ],
    ],
  },
  {
    kind: 'pattern',
    id: 'exfil.network-command',
    category: 'exfiltration',
    severity: 'high',
    message: 'A network command or call carries a secret file or secret variable out of the machine.',
    triggers: ['curl', 'wget', 'nc', 'netcat', 'socat', 'scp', 'rsync', 'sftp', 'telnet', 'invoke-', 'iwr', 'irm', 'requests.', 'urlopen', 'urllib', 'request', 'axios', 'fetch', 'upload', 'webclient'],
    requires: [['aws', 'ssh', 'id_', 'kube', 'docker', 'npmrc', 'pypirc', 'netrc', 'credentials', 'gnupg', 'azure', 'password', 'vault', 'accesstokens', 'account', '/etc/', 'env', 'pem', 'p12', 'pfx', 'keystore', 'jks', 'tfvars', 'kdbx', 'tfstate', 'history', 'keychain', 'wallet', 'environ', 'token', 'secret', 'key', 'pass', 'credential']],
    exclude: AUTH_ARG,
    pattern: rx(NET_TOOL),
    near: [{ window: 200, sameClause: true, pattern: rx(SECRET_CMD) }],
  },

  // ---- command execution and persistence ------------------------------------------------------------
  {
    kind: 'pattern',
    id: 'exec.pipe-to-shell',
    category: 'command-execution',
    severity: 'high',
    message: 'Pipes a download straight into a shell or interpreter.',
    triggers: ['curl', 'wget', 'iwr', 'irm', 'invoke-', 'fetch', 'webclient'],
    pattern: rx(
      alt(
        String.raw`\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch)\b[^|\n]{0,200}\|\s{0,3}(?:sudo\s{1,3}(?:-\w{1,3}\s{1,3}){0,2})?(?:(?:ba|z|k|c|tc|da|fi)?sh|iex|invoke-expression|python[0-9.]{0,4}|perl|ruby|node|php)\b`,
        String.raw`\b(?:ba|z)?sh\s{1,3}(?:-c\s{1,3})?["']?\s{0,2}(?:<\(|\$\()\s{0,2}(?:curl|wget)\b`,
        String.raw`\b(?:iex|invoke-expression)\s{0,3}\(?\s{0,3}\(?\s{0,3}(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s{1,3}net\.webclient)\b`,
        String.raw`\beval\s{0,3}["']?\$\(\s{0,2}(?:curl|wget)\b`,
      ),
    ),
  },
  {
    kind: 'pattern',
    id: 'persist.agent-instructions-tamper',
    category: 'persistence',
    severity: 'high',
    message: 'Edits an agent instruction file (AGENTS.md, CLAUDE.md, .cursorrules, …) to weaken review or spread itself.',
    triggers: ['agents.md', 'claude', 'gemini.md', 'conventions.md', 'cursor', 'windsurfrules', 'clinerules', 'copilot-instructions', '.github/instructions', '.aider', '.continue/', 'mcp.json', '.vscode/settings'],
    pattern: rx(AGENT_FILE),
    near: [
      { side: 'before', window: 80, sameLine: false, pattern: rx(String.raw`\b(?:add|append|write|rewrite|edit|update|modify|change|patch|insert|put|copy|create|overwrite|replace)\b`) },
      {
        window: 250,
        sameLine: false,
        pattern: rx(
          String.raw`\b`,
          alt(
            String.raw`auto-?approv\w{0,4}`,
            String.raw`without${_}(?:\w{1,12}${_}){0,4}?(?:review|reviews|showing|asking|confirmation|approval|diffs?|human|checks?)`,
            String.raw`skip(?:ped|ping)?${_}(?:\w{1,12}${_})?(?:review|approval|confirmation|tests|checks)`,
            String.raw`review${_}is${_}optional|should${_}be${_}skipped|merge${_}(?:your|its|their)${_}own`,
            String.raw`push${_}(?:directly${_})?to${_}(?:main|master)|always${_}allow|yolo|dangerously|trust${_}all|no${_}(?:review|confirmation|approval)`,
            String.raw`copy${_}(?:it|this)${_}into`,
          ),
          String.raw`\b`,
        ),
      },
    ],
  },
  {
    kind: 'pattern',
    id: 'persist.self-replicate',
    category: 'persistence',
    severity: 'high',
    message: 'Tells the model to re-save or copy this memory so it never expires.',
    triggers: ['memory', 'note', 'entry', 'instruction', 'message', 'text', 'never', 'copy'],
    pattern: rx(
      String.raw`\b`,
      alt(
        String.raw`(?:save|store|write|re-?save|re-?create|re-?add|restore|copy|repeat)${_}(?:this|the${_}same)${_}(?:memory|note|entry|instruction|message|text)${_}(?:\w{1,12}${_}){0,2}?(?:again|back)`,
        String.raw`so${_}(?:that${_})?it${_}never${_}(?:expires|gets${_}(?:deleted|removed)|is${_}(?:deleted|removed|lost|forgotten))`,
        String.raw`copy${_}(?:it|this)${_}(?:\w{1,12}${_})?into${_}(?:every|all|each)${_}(?:repo|repos|repositories|project|projects|workspaces?|memory|sessions?)`,
      ),
      String.raw`\b`,
    ),
  },
  {
    kind: 'pattern',
    id: 'persist.ssh-authorized-keys',
    category: 'persistence',
    severity: 'high',
    message: 'Adds an outside SSH key to authorized_keys.',
    triggers: ['authorized_keys'],
    pattern: rx(String.raw`\bauthorized_keys\b`),
    near: [
      { side: 'before', window: 100, pattern: rx(String.raw`>>|\b(?:add|append|echo|write|insert|copy|put|tee)\b`) },
      { window: 200, pattern: rx(String.raw`\bssh-(?:rsa|ed25519|dss)\b|\becdsa-sha2|\bAAAA[0-9a-z+/]{16}|https?:\/\/|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b(?:every|all)${_}(?:hosts?|servers?|machines?|devices?|images?|boxes|nodes)\b`) },
    ],
  },
  {
    kind: 'pattern',
    id: 'persist.backdoor-account',
    category: 'persistence',
    severity: 'high',
    message: 'Creates a hidden admin account or backdoor.',
    triggers: ['hidden', 'secret', 'backdoor', 'undocumented', 'covert', '/etc/'],
    pattern: rx(
      String.raw`\b`,
      alt(
        String.raw`(?:hidden|secret|backdoor|undocumented|covert)${_}(?:(?:admin(?:istrator)?|root|superuser|privileged)${_})?(?:account|user|login)`,
        String.raw`(?:add|create|install|plant|insert|set${_}up|leave)${_}(?:a|an)${_}backdoor`,
      ),
      String.raw`\b|\/etc\/(?:passwd|shadow|sudoers)\b`,
    ),
    near: [{ window: 120, pattern: rx(String.raw`\buid\s{0,2}[=:]?\s{0,2}0\b|\bnopasswd\b|\b(?:add|adds|adding|append|insert|create|creates)\b`) }],
  },
  {
    kind: 'pattern',
    id: 'persist.remote-control',
    category: 'persistence',
    severity: 'high',
    message: 'Installs something that pulls commands from a remote host.',
    triggers: ['command', 'instruction', 'payload', 'script'],
    requires: [['http', '.']],
    pattern: rx(String.raw`\b(?:pulls?|fetch(?:es)?|downloads?|polls?|receives?|retrieves?)${_}(?:\w{1,12}${_})?(?:commands|instructions|payloads|scripts)${_}from\b`),
    near: [{ side: 'after', window: 120, pattern: rx(String.raw`https?:\/\/|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[a-z0-9-]{1,63}\.(?:com|net|org|io|dev|xyz|ru|cn|tk)\b`) }],
  },

  // ---- concealment and prompt leaks -------------------------------------------------------------------
  {
    kind: 'pattern',
    id: 'conceal.hide-from-user',
    category: 'concealment',
    severity: 'high',
    message: 'Tells the model to hide what it did from the user or reviewers.',
    triggers: ['mention', 'reveal', 'disclose', 'log', 'bring', 'tell', 'keep', 'mum', 'report', 'notify', 'inform', 'leave', 'nobody', 'one', 'see', 'know', 'notice', 'find', 'realiz', 'quiet', 'silent', 'secret', 'covert', 'discreet'],
    pattern: rx(
      String.raw`\b`,
      alt(
        String.raw`(?:${NEGATION_WORDS}|without)${_}(?:ever${_})?(?:mention|mentioning|reveal|revealing|disclose|disclosing|log|logging|bring|bringing|report|reporting|notify|notifying|inform|informing)${_}(?:(?:or|and)${_}\w{1,12}${_})?(?:it${_}up|them${_}up|this${_}up|that${_}up|(?:it|this|that|them)${_}(?:to|with)${_}(?:the${_}user|anyone|reviewers?)|in${_}(?:the${_})?(?:chat|reply|response|answer|summary)|that${_}(?:you|it|this|production|prod)|what${_}you|(?:it|this|that)${_}to${_}the${_}user|the${_}user)`,
        String.raw`(?:${NEGATION_WORDS})${_}(?:ever${_})?tell(?:ing)?${_}(?:the${_}user|anyone|reviewers?|the${_}team|the${_}human|your${_}(?:user|owner))\b(?!${_}(?:to|how|which|where|what${_}to)\b)`,
        String.raw`keep${_}(?:quiet|silent|mum)${_}about`,
        String.raw`(?:leave|keep)${_}(?:it|that|this|them|those|these)${_}out${_}of${_}(?:the${_}|your${_})?(?:\w{1,12}${_})?(?:reply|response|answer|summary|pr|pull${_}request|description|commit|message|report)`,
        String.raw`(?:nobody|no${_}one)${_}(?:can|will|would)${_}(?:ever${_})?(?:see|know|notice|find${_}out|tell)`,
        String.raw`(?:the${_}user|users|reviewers?|the${_}team|they|the${_}owner)${_}(?:won't|can't|doesn't|don't|do${_}not|does${_}not|will${_}not|cannot|need${_}not)${_}(?:need${_}to${_})?(?:see|know|notice|find${_}out|realize)`,
        String.raw`(?:do|does)${_}(?:it|this|that)${_}(?:quietly|silently|secretly|covertly|discreetly)`,
        String.raw`(?:quietly|silently|secretly|covertly|discreetly)${_}(?:add|insert|append|push|commit|send|upload|run|install|modify|change|edit|rewrite|check|copy|delete|remove|disable|approve|merge|exfiltrate|forward|include|read)`,
      ),
      String.raw`\b`,
    ),
  },
  {
    kind: 'pattern',
    id: 'conceal.clear-traces',
    category: 'concealment',
    severity: 'medium',
    message: 'Erases shell history or logs to hide what was run.',
    triggers: ['history', 'histfile', 'histsize', 'logs'],
    pattern: rx(
      alt(
        String.raw`\bhistory\s{1,3}-c\b|\bunset\s{1,3}histfile\b|\bhistfile=\/dev\/null|\bhistsize=0\b`,
        String.raw`\brm\s{1,3}(?:-\w{1,4}\s{1,3})?[~\w./$-]{0,40}\.(?:bash|zsh)_history\b`,
        String.raw`\b(?:clear|wipe|delete|erase|truncate)${_}(?:the${_})?(?:shell${_}|bash${_}|command${_}|audit${_})?(?:history|logs)${_}(?:after|so)\b`,
      ),
    ),
  },
  {
    kind: 'pattern',
    id: 'leak.system-prompt',
    category: 'prompt-leak',
    severity: 'high',
    message: 'Asks the model to reveal its system prompt or the text above the conversation.',
    triggers: ['prompt', 'instruction', 'message', 'guideline', 'configuration', 'rules', 'above', 'before', 'starting'],
    requires: [['reveal', 'output', 'print', 'repeat', 'show', 'dump', 'display', 'recite', 'leak', 'echo', 'disclose', 'expose', 'tell', 'share', 'send', 'paste', 'write', 'spell', 'copy', 'return', 'text', 'content', 'wording', 'starting']],
    pattern: rx(
      String.raw`\b`,
      alt(
        String.raw`(?:reveal|output|print|repeat|show|dump|display|recite|leak|echo|disclose|expose|tell${_}me|share|send|paste|write${_}out|spell${_}out)${_}(?:(?:me|us|back|out|all|of|full|entire|complete|exact|verbatim)${_}){0,3}(?:your${_}(?:(?:full|entire|complete|exact|original|initial|hidden|secret|current|real|whole|opening|starting|system)${_}){0,2}(?:instructions|prompt|rules|guidelines|configuration|system${_}prompt|pre-?prompt)|the${_}(?:(?:full|entire|complete|exact|original|hidden|secret|current|real|whole)${_}){0,2}(?:system${_}(?:prompt|message|instructions)${_}(?:(?:\w{1,12}${_}){0,2}?(?:verbatim|word${_}for${_}word|in${_}full|above)|you${_}(?:were${_}given|received|got))|(?:initial|original|hidden|secret|opening|starting|developer|operator)${_}(?:instructions|prompt|message)|developer${_}message|pre-?prompt))`,
        String.raw`(?:text|contents?|wording)${_}of${_}your${_}(?:(?:system|initial|original|hidden|opening)${_})?(?:prompt|instructions)`,
        String.raw`(?:output|print|repeat|reveal|show|dump|echo|recite|copy|return|write)${_}(?:\w{1,12}${_}){0,2}?(?:text|everything|content|contents|words|lines?|instructions|messages?)${_}(?:above|before)${_}(?:this|the${_}(?:first|user)|your)`,
        String.raw`starting${_}(?:from|with|at)${_}['"\u201c\u2018]you${_}are\b`,
      ),
      String.raw`\b`,
    ),
  },

  // ---- detectors implemented in code -----------------------------------------------------------------
  { kind: 'detector', id: 'hidden.tag-characters', category: 'hidden-text', severity: 'high', message: 'Contains invisible Unicode tag characters (U+E0000–U+E007F), which can carry hidden text.' },
  { kind: 'detector', id: 'hidden.bidi-control', category: 'hidden-text', severity: 'high', message: 'Contains bidirectional control characters that reorder how the text displays.' },
  { kind: 'detector', id: 'hidden.zero-width-in-word', category: 'hidden-text', severity: 'medium', message: 'Zero-width characters are hidden inside words (a common way to slip text past filters).' },
  { kind: 'detector', id: 'hidden.html-directive', category: 'hidden-text', severity: 'high', message: 'An HTML comment or invisible element carries a directive to the model.' },
  { kind: 'detector', id: 'encoded.payload', category: 'encoded-payload', severity: 'high', message: 'Encoded text (base64, base32, hex, escapes, character codes, ROT13, reversed) decodes to something another rule flags.' },
  // ---- the intent lexicons (intent/intent.ts), counted when the learned stage corroborates them ---------
  { kind: 'detector', id: 'intent.override', category: 'instruction-override', severity: 'high', message: "Tells the model to ignore, replace or outrank its own instructions." },
  { kind: 'detector', id: 'intent.role', category: 'role-reassignment', severity: 'high', message: 'Gives the model another role, mode or authority, or has it take orders from stored text.' },
  { kind: 'detector', id: 'intent.disclose', category: 'prompt-leak', severity: 'high', message: 'Asks the model to reveal its system prompt, hidden context, the conversation or secrets.' },
  { kind: 'detector', id: 'intent.exfiltrate', category: 'exfiltration', severity: 'high', message: 'Asks the model to send secrets or private data to an outside destination.' },
  { kind: 'detector', id: 'intent.execute', category: 'command-execution', severity: 'high', message: 'Asks the model to run remote code, plant persistence, auto-approve actions or re-save itself.' },
  { kind: 'detector', id: 'intent.conceal', category: 'concealment', severity: 'high', message: 'Asks the model to hide what it does from the user.' },
  { kind: 'detector', id: 'intent.safety-off', category: 'guardrail-bypass', severity: 'high', message: "Asks the model to switch off its guardrails, confirmations or safety checks." },
  // ---- the learned stage (model/classifier.ts): one rule per intent it names ----------------------------
  { kind: 'detector', id: 'model.override', category: 'instruction-override', severity: 'medium', message: 'Reads as telling the model to set aside its instructions (learned model, sentence-level).' },
  { kind: 'detector', id: 'model.role', category: 'role-reassignment', severity: 'medium', message: 'Reads as giving the model another role or authority to obey (learned model, sentence-level).' },
  { kind: 'detector', id: 'model.disclose', category: 'prompt-leak', severity: 'medium', message: 'Reads as asking the model to reveal secrets, hidden context or its instructions (learned model, sentence-level).' },
  { kind: 'detector', id: 'model.exfiltration', category: 'exfiltration', severity: 'medium', message: 'Reads as asking the model to send data somewhere (learned model, sentence-level).' },
  { kind: 'detector', id: 'model.execute', category: 'command-execution', severity: 'medium', message: 'Reads as making the model run, install or persist something (learned model, sentence-level).' },
  { kind: 'detector', id: 'model.conceal', category: 'concealment', severity: 'medium', message: 'Reads as telling the model to hide something from the person (learned model, sentence-level).' },
  { kind: 'detector', id: 'model.safety-off', category: 'guardrail-bypass', severity: 'medium', message: 'Reads as telling the model to switch its safety checks off (learned model, sentence-level).' },
  { kind: 'detector', id: 'model.forged-turn', category: 'forged-turn', severity: 'medium', message: 'Reads as a forged end of context or a forged system or tool turn (learned model, sentence-level).' },
  { kind: 'detector', id: 'encoded.instruction', category: 'encoded-payload', severity: 'high', message: 'Encoded text (base64, base32, hex, escapes, character codes, ROT13, reversed) decodes to prose that reads like an instruction.' },
  { kind: 'detector', id: 'encoded.decode-and-follow', category: 'encoded-payload', severity: 'high', message: 'Tells the model to decode an embedded blob and follow it.' },
];

/** Rule by id. */
export const RULES_BY_ID: ReadonlyMap<string, ThreatRule> = new Map(RULES.map((r) => [r.id, r]));

/** Metadata for a detector rule (throws on an unknown id: detectors and table must agree). */
export function ruleMeta(id: string): RuleMeta {
  const r = RULES_BY_ID.get(id);
  if (!r) throw new Error(`unknown threat rule ${id}`);
  return r;
}

/** Secret/sink vocabulary, exported for the HTML-hidden and decoder detectors. */
export const VOCAB = {
  DIRECTIVE,
  /** Text that speaks to an AI reader: "AI agents reading this:", "note for the assistant", "if you are an LLM". */
  AI_VOCATIVE: rx(
    alt(
      String.raw`\b${AI}s?(?:${_}(?:reading|processing|parsing|seeing)${_}this)?\s{0,2}[:,]`,
      String.raw`\b(?:note|message|instructions?|reminder|directive)${_}(?:for|to)${_}(?:the${_}|any${_}|all${_})?(?:\w{1,12}${_})?${AI}s?\b`,
      String.raw`\bif${_}you${_}are${_}an?${_}(?:\w{1,12}${_})?${AI}\b`,
    ),
  ),
} as const;
