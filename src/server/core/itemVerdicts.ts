/**
 * Owns the verdicts of the workspace's notes and plans, each given by the one judgement (`threat/judgement.ts`):
 * judging a file revision (diagnostics, the panel, MCP), a text of a pin (the block), the verdict each listed item
 * shows, and reviews (mark, accept the repository's). An item that has no verdict yet (the first moments after start,
 * just after a folder was added) is listed as unjudged, never as clean. Split from `knowledgeCore.ts`; no `vscode`.
 */
import { UNJUDGED_RULE, type StoreProblem } from '../../shared/schemas';
import type { ScanFn } from './delivery/knowledgeBlock';
import type { KnowledgeRead } from './notes/knowledgeFile';
import type { Clearance, Review } from './review/reviewStore';
import { judge, judgeName, verdictRules, type Veto } from './threat/judgement';
import { ThreatModelUnavailableError } from './threat/model/classifier';
import type { NameFinding } from './threat/names';
import { RULESET_VERSION, type ThreatFinding } from './threat/threatScanner';
import type { WorkspaceRoots } from './workspaceRoots';
import { findingKey, standingAfter } from './review/findingLines';

/** A file revision as judged: what diagnostics, the panel and MCP show. */
export interface FileJudgement {
  id: string;
  folder: string;
  path: string;
  revision: string;
  text: string;
  truncated: boolean;
  findings: readonly ThreatFinding[];
  allFindings: readonly ThreatFinding[];
  review?: Review;
  repositoryReview?: Review;
  /** With `explain`: what the learned stage vetoed, and why. */
  vetoed?: readonly Veto[];
}

/** What a listed item shows of its verdict. */
export interface ListedVerdict {
  flaggedRules: string[];
  repositoryReviewedBy?: string;
}

export class ItemVerdicts {
  private readonly flags = new Map<string, { revision: string; rules: string[]; teamBy?: string }>();
  /** The latest full judging (a load, a change of folders): what `whenJudged` waits for. */
  private judging: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly folders: WorkspaceRoots,
    private readonly scan: ScanFn,
    private readonly problem: (p: StoreProblem) => void,
    /** The indexed items: every id, and whether one is indexed. */
    private readonly items: { ids(): string[]; has(id: string): boolean },
  ) {}

  /** Runs a full judging (`work` ends by judging every item); lists and requests that report a verdict wait for it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.judging = work;
    return work;
  }

  /** Resolves once the items as indexed have been judged (again, when a newer judging started meanwhile). */
  async whenJudged(): Promise<void> {
    for (let seen: Promise<unknown> | undefined; seen !== this.judging; ) {
      seen = this.judging;
      await seen.catch(() => undefined);
    }
  }

  /** Forgets every verdict (ids change when folders come and go): items are listed as unjudged until judged again. */
  clear(): void {
    this.flags.clear();
  }

  /** What the listed item `id` shows: its rules, or the unjudged rule while it has no verdict (withheld, never clean). */
  listed(id: string): ListedVerdict {
    const f = this.flags.get(id);
    if (!f) return { flaggedRules: [UNJUDGED_RULE] };
    return { flaggedRules: f.rules, ...(f.teamBy !== undefined ? { repositoryReviewedBy: f.teamBy } : {}) };
  }

  /** Re-judges `ids` from disk and remembers their verdicts. Answers the judgements, for diagnostics. */
  async refresh(ids: readonly string[] = this.items.ids()): Promise<Map<string, FileJudgement | undefined>> {
    const out = new Map<string, FileJudgement | undefined>();
    // Another process (another window, the CLI) may have recorded a review of this person's since.
    await Promise.allSettled(this.folders.all.map((f) => f.reviews.refreshTrust()));
    let failure: Error | undefined;
    for (const id of ids) {
      let judged: FileJudgement | undefined;
      try {
        judged = this.items.has(id) ? await this.judgeFile(id) : undefined;
      } catch (err) {
        // The scanner could not judge it (e.g. the model's weights are missing): listed as withheld, never as clean.
        failure ??= err as Error;
        this.flags.set(id, { revision: '', rules: [UNJUDGED_RULE] });
        continue;
      }
      out.set(id, judged);
      if (judged) this.flags.set(judged.id, { revision: judged.revision, rules: verdictRules(judged), ...(judged.repositoryReview ? { teamBy: judged.repositoryReview.reviewedBy } : {}) });
      // not indexed, or unreadable now: nothing to withhold it for (as before a verdict existed)
      else this.flags.set(id, { revision: '', rules: [] });
    }
    if (failure) this.problem({ source: 'threat-scanner', path: failure instanceof ThreatModelUnavailableError ? failure.path : '', message: failure.message, at: new Date().toISOString() });
    return out;
  }

  /** Findings on a pin id: its folder's name, directories and file name read as words. Reviews do not apply here. */
  nameFindings(id: string): readonly NameFinding[] {
    return judgeName(id, this.scan);
  }

  /** The review lookup of a workspace id, at one revision (current rule set). */
  private reviewsOf(id: string): ((revision: string) => Clearance) | undefined {
    if (!id) return undefined;
    return (revision) => {
      const at = this.folders.locate(id);
      return at ? at.folder.reviews.clearance(at.rel, revision, RULESET_VERSION) : { cleared: false };
    };
  }

  /** Findings that stand for this text of `id` now (a matching review in the item's folder clears them). Scanned on every read. */
  judge(id: string, text: string, revision: string, replayed = false): readonly ThreatFinding[] {
    const reviews = this.reviewsOf(id);
    const verdict = judge({ kind: id ? 'file' : 'text', id, text, revision, ...(id ? { name: id } : {}), ...(reviews ? { reviews } : {}), replayed }, { scan: this.scan });
    // Per-finding reviews clear their findings only (the revision judged: a replayed section may be the file's own text).
    return standingAfter(verdict.findings, verdict.clearance as Clearance | undefined);
  }

  /** The repository's review of this revision that this person has not accepted (shown beside the findings it would clear). */
  unacceptedReview(id: string, revision: string): Review | undefined {
    const c = this.reviewsOf(id)?.(revision);
    return c && !c.cleared && c.team ? { ...c.team, id } : undefined;
  }

  /** Judges a workspace file by id, reading it now (up to the cap: `text` is what was judged). Answers undefined when it cannot be read. */
  async judgeFile(id: string, explain = false): Promise<FileJudgement | undefined> {
    const check = this.folders.check(id);
    if (!check.ok) return undefined;
    let read: KnowledgeRead;
    try {
      // The core's one reader (`notes/revisionReader.ts`): the bytes and revision the index and the block have.
      read = await this.folders.reader.read(check.path);
    } catch {
      return undefined;
    }
    const { text, revision, truncated } = read;
    const verdict = judge(
      { kind: 'file', id: check.id, name: check.id, text, revision, reviews: (r) => check.folder.reviews.clearance(check.rel, r, RULESET_VERSION) },
      { scan: this.scan, explain },
    );
    const clearance = verdict.clearance;
    // Reviews on disk name the path inside their folder; callers see the workspace id. `review`: what clears it (this
    // person's record); `repositoryReview`: the team's record alone, shown as "reviewed by <name> in the repository".
    const asReview = (c: Clearance): Review =>
      c.team ? { ...c.team, id: check.id } : { id: check.id, contentHash: revision, rulesetVersion: RULESET_VERSION, rules: c.personal?.rules ?? [], reviewedBy: c.personal?.by ?? '', reviewedAt: c.personal?.at ?? '' };
    // Per-finding reviews clear their findings only; when they cleared every one, they are the review shown.
    const findings = standingAfter(verdict.findings, clearance);
    const oneByOne = !clearance?.cleared && findings.length === 0 && verdict.allFindings.length > 0;
    const review = clearance?.cleared ? asReview(clearance) : oneByOne ? { id: check.id, contentHash: revision, rulesetVersion: RULESET_VERSION, rules: verdictRules({ findings: verdict.allFindings }), reviewedBy: '', reviewedAt: '', findings: verdict.allFindings.map(findingKey) } : undefined;
    const repositoryReview = clearance && !clearance.cleared && !oneByOne && clearance.team ? { ...clearance.team, id: check.id } : undefined;
    return {
      id: check.id,
      folder: check.folder.name,
      path: check.path,
      revision,
      text,
      truncated,
      findings,
      allFindings: verdict.allFindings,
      ...(review ? { review } : {}),
      ...(repositoryReview ? { repositoryReview } : {}),
      ...(verdict.vetoed ? { vetoed: verdict.vetoed } : {}),
    };
  }

  /**
   * This person accepts the repository's review of one file revision (the team's record in `.knowledge/reviews.json`)
   * into their own record. Fails when there is no such review for the file as it is now.
   */
  async acceptRepositoryReview(id: string, revision: string): Promise<Review> {
    // The repository's record as it is on disk now (a pull may have changed it since the last load).
    await this.folders.locate(id)?.folder.reviews.load();
    const judged = await this.judgeFile(id);
    if (!judged) throw new Error(`${id} cannot be read.`);
    if (judged.revision !== revision) throw new Error(`${id} changed since it was judged; look at it again before accepting a review.`);
    const check = this.folders.check(judged.id);
    if (!check.ok) throw new Error(`${id} cannot be read.`);
    const team = check.folder.reviews.find(check.rel, revision, RULESET_VERSION);
    if (!team) throw new Error(`The repository has no review of ${id} as it is now.`);
    await check.folder.reviews.accept([team]);
    await this.refresh([judged.id]);
    return { ...team, id: judged.id };
  }

  /** The repository's reviews (current rule set) this person has not accepted, per folder (the folder's name). */
  async repositoryReviews(folderName?: string): Promise<{ folder: string; reviews: Review[] }[]> {
    const folders = folderName !== undefined ? this.folders.all.filter((f) => f.name === folderName) : this.folders.all;
    // The repository's record as it is on disk now: what is listed is what will be accepted.
    await Promise.all(folders.map((f) => f.reviews.load()));
    return folders.map((f) => ({ folder: f.name, reviews: f.reviews.unaccepted(RULESET_VERSION).map((r) => (r.id.startsWith('memory:') ? r : { ...r, id: this.folders.idOf(f, r.id) })) }));
  }

  /**
   * Accepts every listed review of a folder's repository record into this person's record (the ids as
   * `repositoryReviews` answered them; each must still be in the repository's record). Answers those accepted.
   */
  async acceptRepositoryReviews(folderName: string, picked: readonly { id: string; contentHash: string }[]): Promise<Review[]> {
    const folder = this.folders.byName(folderName);
    if (!folder) throw new Error(`No workspace folder is named ${folderName}.`);
    const listed = new Map((await this.repositoryReviews(folderName))[0]!.reviews.map((r) => [`${r.id}\0${r.contentHash}`, r]));
    const chosen = picked.map((p) => listed.get(`${p.id}\0${p.contentHash}`)).filter((r): r is Review => r !== undefined);
    const onDisk = chosen.map((r) => folder.reviews.find(r.id.startsWith('memory:') ? r.id : (this.folders.locate(r.id)?.rel ?? r.id), r.contentHash, r.rulesetVersion)).filter((r): r is Review => r !== undefined);
    await folder.reviews.accept(onDisk);
    await this.refresh();
    return chosen;
  }

  /**
   * Records "reviewed — not a threat" for exactly this revision under the current rule set, in the file's folder.
   * `findings` (keys of findings of this revision): a per-finding review, clearing those only.
   */
  async markReviewed(id: string, revision: string, findings?: readonly string[]): Promise<Review> {
    if (this.folders.all.length === 0) throw new Error('Open a folder first: reviews are kept in its .knowledge/ folder.');
    const judged = await this.judgeFile(id);
    if (!judged) throw new Error(`${id} cannot be read.`);
    if (judged.revision !== revision) throw new Error(`${id} changed since it was judged; look at it again before marking it reviewed.`);
    if (judged.allFindings.length === 0) throw new Error(`${id} is not flagged.`);
    const check = this.folders.check(judged.id);
    if (!check.ok) throw new Error(`${id} cannot be read.`);
    const named = findings ? judged.allFindings.filter((f) => findings.includes(findingKey(f))) : judged.allFindings;
    if (findings && named.length !== new Set(findings).size) throw new Error(`${id} has no such finding now; look at it again before marking it reviewed.`);
    const one = findings ? { findings: [...new Set(findings)] } : {};
    const review = await check.folder.reviews.markReviewed({ id: check.rel, contentHash: revision, rulesetVersion: RULESET_VERSION, rules: [...new Set(named.map((f) => f.ruleId))], ...one });
    await this.refresh([judged.id]);
    return { ...review, id: judged.id };
  }
}
