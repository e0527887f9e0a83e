/**
 * Delivery to agents outside VS Code's chat (Claude Code's hooks, the MCP server): the same contract as
 * `@knowledge` — delivered once, re-delivered after an edit of pinned content or a compaction, scanned on every
 * read, flagged items withheld — over the agent pins of `.knowledge/pins.json`.
 *
 * The sessions these agents open are not VS Code's: they live in a per-user state folder
 * (`$XDG_STATE_HOME/session-knowledge`, else `~/.local/state/session-knowledge`), one sessions store per
 * workspace, with the same atomic, locked files as the extension's (`SessionStore`). Pure Node, no `vscode`.
 */
import { VerdictStore } from '../threat/verdictStore';
import { sharedScanner } from '../threat/judgement';
import type { ThreatFinding, ThreatScanner } from '../threat/threatScanner';
import type { ScanFn } from '../delivery/knowledgeBlock';

export { agentStateDir, agentSessionsPath, claudeCodeSessionKey } from './agentPaths';

/** What the agent's session lost or is about to start with. */
export type AgentMoment =
  /** A new, resumed or cleared session: send the block and record it. */
  | 'start'
  /** The session compacted its history: send the block again. */
  | 'compact'
  /** A prompt: send the block only when it is owed (first delivery, or pinned content changed). */
  | 'prompt';

/**
 * The scan an agent process uses: the one verdict cache (`judgement.ts` `sharedScanner`), seeded from verdicts kept
 * across processes in the state folder by content hash and rule-set version (`VerdictStore`). A hook runs as a new
 * process on every prompt; with nothing changed it judges nothing again, and an edited file (a new hash) or a new rule
 * set is judged afresh.
 */
export class PersistedScan {
  private readonly used = new Map<string, readonly ThreatFinding[]>();
  private judgedNew = false;
  private readonly store: VerdictStore;

  constructor(path: string, private readonly scanner: ThreatScanner = sharedScanner) {
    this.store = new VerdictStore(path);
  }

  async load(): Promise<void> {
    for (const [hash, findings] of await this.store.load()) this.scanner.seed(hash, findings);
  }

  readonly scan: ScanFn = (text, contentHash) => {
    if (contentHash === undefined) return this.scanner.scan(text);
    const misses = this.scanner.stats.misses;
    const findings = this.scanner.scan(text, contentHash);
    if (this.scanner.stats.misses !== misses) this.judgedNew = true;
    this.used.set(contentHash, findings);
    return findings;
  };

  /** Keeps the verdicts of what this process read (so the file holds current content only), when any was new. */
  async save(): Promise<void> {
    if (this.judgedNew) await this.store.save(this.used);
  }
}
