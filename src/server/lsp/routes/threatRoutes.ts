/**
 * Owns threat findings and reviews on the wire: diagnostics on files under `.knowledge/` (open editors use
 * their live text), the "mark as reviewed" code action, and the judge-file, judge-texts and mark-reviewed requests.
 * The code action's command is the extension's client-side `sessionKnowledge.markReviewed`; a generic LSP
 * client (Neovim, Helix…) gets `sessionKnowledge.server.markReviewed` instead, which the server executes.
 * A finding covered only by the repository's review (the team's record) says "reviewed by <name> in the repository —
 * not accepted by you" and gets a second action that accepts it into this person's record.
 */
import { type CodeAction, CodeActionKind, type Diagnostic, DiagnosticSeverity, TextDocuments } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { z } from 'zod';
import {
  AcceptRepositoryReviewRequest,
  AcceptRepositoryReviewsRequest,
  ItemsChangedNotification,
  JudgeFileRequest,
  JudgeTextsRequest,
  MarkReviewedRequest,
  RepositoryReviewsRequest,
} from '../../../shared/protocol';
import { defineRequest } from '../../../shared/rpc';
import { MarkReviewedParamsSchema, type ReviewRecord } from '../../../shared/reviewSchemas';
import { sha256Hex } from '../../core/sha256Hex';
import { MAX_KNOWLEDGE_BYTES, capKnowledgeText } from '../../core/notes/knowledgeFile';
import { toReviewRecord, type Review } from '../../core/review/reviewStore';
import { RULESET_VERSION, type ThreatFinding } from '../../core/threat/threatScanner';
import { route } from '../routing';
import { isNameFinding } from '../../core/threat/names';
import { findingKey, findingLines, lineAt, linesLabel, type FindingGroup } from '../../core/review/findingLines';
import type { ServerContext } from './routeContext';
import type { KnowledgeCore } from '../../core/knowledgeCore';

export const DIAGNOSTIC_SOURCE = 'Session Knowledge';

/** The command the extension runs client-side (it asks first, then sends `knowledge/threat/markReviewed`). */
export const CLIENT_MARK_REVIEWED_COMMAND = 'sessionKnowledge.markReviewed';
/**
 * The command a generic client sends back as `workspace/executeCommand`: advertised only to those clients, and
 * named apart from every `sessionKnowledge.*` command the extension registers (vscode-languageclient registers
 * a server's commands in VS Code, so the same id would collide).
 */
export const SERVER_MARK_REVIEWED_COMMAND = 'sessionKnowledge.server.markReviewed';

/** The extension's command that accepts the repository's review of a file (it asks first). */
export const CLIENT_ACCEPT_REVIEW_COMMAND = 'sessionKnowledge.acceptRepositoryReview';
/** A generic client's: the server accepts the repository's review of `[id, revision]`. */
export const SERVER_ACCEPT_REVIEW_COMMAND = 'sessionKnowledge.server.acceptRepositoryReview';

/** The extension's command that shows the flagged lines and removes them from the note (it asks first). */
export const CLIENT_REMOVE_FLAGGED_LINES_COMMAND = 'sessionKnowledge.removeFlaggedLines';

/**
 * `workspace/executeCommand` of the server's commands, arguments `[id, revision]` as the code action gives them, and
 * for a per-finding review the findings' keys third.
 */
const ExecuteMarkReviewedRequest = defineRequest(
  'workspace/executeCommand',
  z.object({
    command: z.enum([SERVER_MARK_REVIEWED_COMMAND, SERVER_ACCEPT_REVIEW_COMMAND]),
    arguments: z.tuple([MarkReviewedParamsSchema.shape.id, MarkReviewedParamsSchema.shape.revision, MarkReviewedParamsSchema.shape.findings]),
  }),
)<ReviewRecord>();

/** Offsets → LSP positions for one text. */
function positionAt(lineStarts: number[], offset: number): { line: number; character: number } {
  const line = lineAt(lineStarts, offset);
  return { line, character: offset - lineStarts[line]! };
}

/** What a diagnostic carries of its finding's group, for its per-finding quick fix. */
function groupData(g: FindingGroup | undefined): { findings?: string[]; lines?: string; rules?: string[] } {
  return g ? { findings: g.keys, lines: linesLabel(g), rules: g.rules } : {};
}

/** Diagnostics a file gets at most; past them one more diagnostic says how many were left out. */
export const MAX_DIAGNOSTICS = 100;

/**
 * The diagnostics of one file: a warning per finding, at most {@link MAX_DIAGNOSTICS} and one saying how many more;
 * `truncated` (the file is over the cap of every knowledge-file read): a note where judging and sending stop.
 */
export function findingsToDiagnostics(text: string, findings: readonly ThreatFinding[], id: string, revision: string, truncated = false, repositoryReview?: { reviewedBy: string }): Diagnostic[] {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const shown = findings.slice(0, MAX_DIAGNOSTICS);
  // Each finding's group (the findings on the lines it touches): what its quick fix reviews, named by line and rule.
  const { groups } = findingLines(text, findings);
  const groupOf = (f: ThreatFinding) => groups.find((g) => g.keys.includes(findingKey(f)));
  const out: Diagnostic[] = shown.map((f) => ({
    range: { start: positionAt(lineStarts, f.start), end: positionAt(lineStarts, Math.max(f.start, f.end)) },
    severity: DiagnosticSeverity.Warning,
    source: DIAGNOSTIC_SOURCE,
    code: f.ruleId,
    message: repositoryReview
      ? `${f.message} Withheld from the agent — reads as an instruction (${f.ruleId}). Reviewed by ${repositoryReview.reviewedBy} in the repository — not accepted by you.`
      : `${f.message} Withheld from the agent — reads as an instruction (${f.ruleId}). If this is intended, mark it reviewed.`,
    data: { id, revision, ...groupData(groupOf(f)), ...(repositoryReview ? { repositoryReview: true } : {}) },
  }));
  const more = findings.length - shown.length;
  if (more > 0) {
    const at = positionAt(lineStarts, findings[MAX_DIAGNOSTICS]!.start);
    out.push({
      range: { start: at, end: at },
      severity: DiagnosticSeverity.Warning,
      source: DIAGNOSTIC_SOURCE,
      code: 'more-findings',
      message: `${more} more finding${more === 1 ? '' : 's'} in this file (${[...new Set(findings.slice(MAX_DIAGNOSTICS).map((f) => f.ruleId))].slice(0, 5).join(', ')}) are not listed. The file is withheld from the agent; run \`session-knowledge scan\` to see them all.`,
    });
  }
  if (truncated) {
    const end = positionAt(lineStarts, text.length);
    out.push({
      range: { start: end, end },
      severity: DiagnosticSeverity.Information,
      source: DIAGNOSTIC_SOURCE,
      code: 'over-size-cap',
      message: `This file is over ${MAX_KNOWLEDGE_BYTES / 1024} KiB: only the text up to here is judged and given to agents; the rest is left out.`,
    });
  }
  return out;
}

/** What other routes need from diagnostics: judge files again after they changed on disk. */
export interface Diagnostics {
  /** Judges `ids` (every file when omitted) from disk and publishes; open editors keep their live text. */
  publishFromDisk(ids?: readonly string[]): Promise<void>;
  /** Clears the diagnostics of files no longer in the workspace. */
  clear(paths: readonly string[]): void;
}

export function registerThreatRoutes(ctx: ServerContext): Diagnostics {
  const { connection } = ctx;
  const documents = new TextDocuments(TextDocument);
  /** The workspace id of a file under a folder's own `.knowledge/` (the folder that holds it, the innermost). */
  const idOfUri = (uri: string): string | undefined => {
    const folders = ctx.current()?.folders;
    if (!folders || !uri.startsWith('file:')) return undefined;
    try {
      const at = folders.ofPath(fileURLToPath(uri));
      return at && at.rel.startsWith('.knowledge/') ? folders.idOf(at.folder, at.rel) : undefined;
    } catch {
      return undefined;
    }
  };
  const uriOfId = (id: string): string | undefined => {
    const at = ctx.current()?.folders.locate(id);
    return at ? pathToFileURL(join(at.folder.path, at.rel)).href : undefined;
  };
  const publishOpen = (doc: TextDocument) => {
    const id = idOfUri(doc.uri);
    const core = ctx.current();
    if (!id || !core) return;
    // The live text read as the file would be: up to the cap, with the revision of what is judged.
    const { text, revision, truncated } = capKnowledgeText(doc.getText());
    const findings = core.judge(id, text, revision) as readonly ThreatFinding[];
    const team = findings.length > 0 ? core.verdicts.unacceptedReview(id, revision) : undefined;
    void connection.sendDiagnostics({ uri: doc.uri, diagnostics: findingsToDiagnostics(text, findings, id, revision, truncated, team) });
  };
  const publishFromDisk = async (ids?: readonly string[]) => {
    const c = ctx.current();
    if (!c || c.folders.all.length === 0) return;
    const judged = await c.refreshFlags(ids);
    for (const [id, j] of judged) {
      const uri = j ? pathToFileURL(j.path).href : uriOfId(id);
      if (!uri) continue;
      const open = documents.get(uri);
      if (open) publishOpen(open);
      else void connection.sendDiagnostics({ uri, diagnostics: j ? findingsToDiagnostics(j.text, j.findings as ThreatFinding[], id, j.revision, j.truncated, j.repositoryReview) : [] });
    }
  };
  /** Files that left the workspace (their folder was removed): their diagnostics go. */
  const clear = (paths: readonly string[]) => {
    for (const path of paths) void connection.sendDiagnostics({ uri: pathToFileURL(path).href, diagnostics: [] });
  };
  documents.onDidOpen((e) => publishOpen(e.document));
  documents.onDidChangeContent((e) => publishOpen(e.document));
  documents.onDidClose((e) => {
    const id = idOfUri(e.document.uri);
    if (id) void publishFromDisk([id]);
  });
  documents.listen(connection);

  connection.onCodeAction((params) => {
    const actions: CodeAction[] = [];
    for (const d of params.context.diagnostics) {
      if (d.source !== DIAGNOSTIC_SOURCE) continue;
      const data = d.data as { id?: string; revision?: string; repositoryReview?: boolean; findings?: string[]; lines?: string; rules?: string[] } | undefined;
      if (!data?.id || !data.revision) continue;
      if (data.repositoryReview) {
        actions.push({
          title: "Accept the repository's review — not a threat",
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          command: { title: "Accept the repository's review", command: ctx.client() === 'generic' ? SERVER_ACCEPT_REVIEW_COMMAND : CLIENT_ACCEPT_REVIEW_COMMAND, arguments: [data.id, data.revision] },
        });
      }
      // Per finding: it reviews the findings on this diagnostic's lines, and names every rule it clears.
      const one = data.findings && data.findings.length > 0;
      actions.push({
        title: one ? `Mark as reviewed — not a threat: ${data.lines} (${(data.rules ?? []).join(', ')})…` : `Mark as reviewed — not a threat (${String(d.code)})`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        command: { title: 'Mark as reviewed', command: ctx.client() === 'generic' ? SERVER_MARK_REVIEWED_COMMAND : CLIENT_MARK_REVIEWED_COMMAND, arguments: one ? [data.id, data.revision, data.findings] : [data.id, data.revision] },
      });
      // The other remedy (the extension shows the exact lines, asks, and edits the note: Undo works).
      if (ctx.client() !== 'generic') {
        actions.push({
          title: 'Remove the flagged lines…',
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          command: { title: 'Remove the flagged lines…', command: CLIENT_REMOVE_FLAGGED_LINES_COMMAND, arguments: [data.id, data.revision] },
        });
      }
      // The actions of the first diagnostic at the cursor are enough.
      break;
    }
    return actions;
  });

  route(connection, JudgeFileRequest, async (p) => {
    // explained: why it is flagged, and what the learned stage vetoed
    const j = await (await ctx.judged()).judgeFile(p.id, true);
    if (!j) return null;
    const plain = (f: ThreatFinding) => ({ ruleId: f.ruleId, category: f.category, severity: f.severity, message: f.message, start: f.start, end: f.end, ...(isNameFinding(f) ? { inName: true } : {}) });
    return {
      id: j.id,
      revision: j.revision,
      rulesetVersion: RULESET_VERSION,
      findings: j.findings.map(plain),
      allFindings: j.allFindings.map(plain),
      ...(j.review ? { review: toReviewRecord(j.review) } : {}),
      ...(j.repositoryReview ? { repositoryReview: toReviewRecord(j.repositoryReview) } : {}),
      vetoed: (j.vetoed ?? []).map((v) => ({ ruleId: v.ruleId, start: v.start, end: v.end, gate: Number.isFinite(v.gate) ? v.gate : null, score: Number.isFinite(v.score) ? v.score : null })),
    };
  });
  route(connection, JudgeTextsRequest, async (p) => {
    const core = await ctx.judged();
    const results = p.texts.map(({ text, id }) => {
      // replayed: a section may end with the line break the block compiler added (the judgement judges the file's text too)
      const findings = core.judge(id ?? '', text, sha256Hex(text), id !== undefined);
      return { flagged: findings.length > 0, rules: [...new Set(findings.map((f) => f.ruleId))], spans: findings.map((f) => ({ start: f.start, end: f.end })) };
    });
    return { rulesetVersion: RULESET_VERSION, results };
  });
  /** Records a review in this person's own record (made here, or the repository's accepted), then tells the editors. */
  const clearing =
    (record: (core: KnowledgeCore, id: string, revision: string, findings?: string[]) => Promise<Review>) =>
    async (id: string, revision: string, findings?: string[]): Promise<ReviewRecord> => {
      const r = await record(await ctx.judged(), id, revision, findings);
      await publishFromDisk([r.id]);
      void connection.sendNotification(ItemsChangedNotification.type, { ids: [r.id] });
      return toReviewRecord(r);
    };
  const markReviewed = clearing((core, id, revision, findings) => core.markReviewed(id, revision, findings));
  route(connection, MarkReviewedRequest, (p) => markReviewed(p.id, p.revision, p.findings));
  const acceptReview = clearing((core, id, revision) => core.verdicts.acceptRepositoryReview(id, revision));
  route(connection, AcceptRepositoryReviewRequest, (p) => acceptReview(p.id, p.revision));
  route(connection, ExecuteMarkReviewedRequest, (p) => (p.command === SERVER_ACCEPT_REVIEW_COMMAND ? acceptReview(p.arguments[0], p.arguments[1]) : markReviewed(p.arguments[0], p.arguments[1], p.arguments[2])));
  route(connection, RepositoryReviewsRequest, async (p) => ({ folders: (await (await ctx.judged()).verdicts.repositoryReviews(p.folder)).map((f) => ({ folder: f.folder, reviews: f.reviews.map(toReviewRecord) })) }));
  route(connection, AcceptRepositoryReviewsRequest, async (p) => {
    const accepted = await (await ctx.judged()).verdicts.acceptRepositoryReviews(p.folder, p.reviews);
    const files = accepted.filter((r) => !r.id.startsWith('memory:')).map((r) => r.id);
    await publishFromDisk(files);
    void connection.sendNotification(ItemsChangedNotification.type, { ids: files });
    return accepted.map(toReviewRecord);
  });

  return { publishFromDisk, clear };
}
