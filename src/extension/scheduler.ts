/**
 * Scheduled prompts the person configures (`sessionKnowledge.scheduledPrompts`): a name, a prompt, pins, and
 * either an interval in minutes or a time of day. Each runs in its own session with no UI, gets the knowledge
 * block under the same rule as a chat message, and keeps its answers with the session (viewable by command).
 * A slot is claimed through the server first, so two windows never run the same slot twice.
 * The setting is read through `GuardedSettings` (a workspace value runs once this person confirmed it), and
 * nothing runs in Restricted Mode: the schedule resumes by itself once the folder is trusted.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { AppendResultRequest, ClaimScheduledRunRequest, ListSessionsRequest } from '../shared/protocol';
import { runDispatched } from './chat/dispatch';
import type { GuardedSettings } from './guardedSettings';
import { deliveryAllowed, refusedInRestrictedMode } from './workspaceTrust';

export interface ScheduledPrompt {
  name: string;
  prompt: string;
  pins: string[];
  everyMinutes?: number;
  /** "HH:MM", local time. */
  at?: string;
}

/** The scheduled prompts that apply (`settings.scheduledPrompts()`), the invalid ones left out. */
export function readSchedules(settings: GuardedSettings): ScheduledPrompt[] {
  const out: ScheduledPrompt[] = [];
  for (const r of settings.scheduledPrompts()) {
    const s = r as Partial<ScheduledPrompt>;
    if (typeof s?.name !== 'string' || typeof s.prompt !== 'string' || !s.name.trim() || !s.prompt.trim()) continue;
    const pins = Array.isArray(s.pins) ? s.pins.filter((p): p is string => typeof p === 'string') : [];
    const everyMinutes = typeof s.everyMinutes === 'number' && s.everyMinutes >= 1 ? s.everyMinutes : undefined;
    const at = typeof s.at === 'string' && /^([01]\d|2[0-3]):[0-5]\d$/.test(s.at) ? s.at : undefined;
    if (!everyMinutes && !at) continue;
    out.push({ name: s.name.trim(), prompt: s.prompt, pins, ...(everyMinutes ? { everyMinutes } : {}), ...(at ? { at } : {}) });
  }
  return out;
}

/** The slot a schedule is due for at `now`, or undefined when it is not due. Slots are stable strings. */
export function dueSlot(s: ScheduledPrompt, now: Date): string | undefined {
  if (s.everyMinutes) return `every:${Math.floor(now.getTime() / (s.everyMinutes * 60_000))}`;
  if (s.at) {
    const [h, m] = s.at.split(':').map(Number) as [number, number];
    const due = new Date(now);
    due.setHours(h, m, 0, 0);
    if (now < due) return undefined;
    return `at:${due.getFullYear()}-${due.getMonth() + 1}-${due.getDate()}`;
  }
  return undefined;
}

export class Scheduler implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  private running = new Set<string>();

  constructor(
    private readonly client: LanguageClient,
    private readonly log: vscode.LogOutputChannel,
    private readonly settings: GuardedSettings,
    private readonly tickMs = 30_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.tickMs);
  }

  /** The schedules as they apply now (what the "Run Scheduled Prompt Now" command offers). */
  schedules(): ScheduledPrompt[] {
    return readSchedules(this.settings);
  }

  async tick(now = new Date()): Promise<void> {
    // Restricted Mode: no scheduled prompt runs (and no slot is claimed: it runs once the folder is trusted).
    if (!deliveryAllowed()) return;
    for (const s of this.schedules()) {
      const slot = dueSlot(s, now);
      if (!slot || this.running.has(s.name)) continue;
      try {
        const claim = await this.client.sendRequest(ClaimScheduledRunRequest.type, { name: s.name, slot, pins: s.pins });
        if (claim.claimed) await this.run(s, claim.key);
      } catch (err) {
        this.log.warn(`Scheduled prompt "${s.name}" could not run: ${(err as Error).message}`);
      }
    }
  }

  /** Runs one schedule now (also the "Run Scheduled Prompt Now" command). */
  async run(s: ScheduledPrompt, key?: string): Promise<string | undefined> {
    if (refusedInRestrictedMode(`Scheduled prompt "${s.name}"`, this.log)) return undefined;
    this.running.add(s.name);
    const source = new vscode.CancellationTokenSource();
    try {
      const sessionKey = key ?? (await this.client.sendRequest(ClaimScheduledRunRequest.type, { name: s.name, slot: `manual:${Date.now()}`, pins: s.pins })).key;
      const result = await runDispatched(this.client, this.log, { prompt: s.prompt, sessionKey, origin: 'schedule' }, source.token);
      await this.client.sendRequest(AppendResultRequest.type, {
        key: sessionKey,
        result: { at: new Date().toISOString(), prompt: s.prompt, answer: result.answer, blockSent: result.blockSent, ...(result.error ? { error: result.error } : {}) },
      });
      this.log.info(`Scheduled prompt "${s.name}" ran in ${sessionKey}${result.error ? ` and failed: ${result.error}` : ''}.`);
      return sessionKey;
    } finally {
      source.dispose();
      this.running.delete(s.name);
    }
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

export async function showScheduledResults(client: LanguageClient): Promise<void> {
  const sessions = (await client.sendRequest(ListSessionsRequest.type)).filter((s) => s.results.length > 0);
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage('No scheduled or dispatched prompt has answered yet.');
    return;
  }
  const pick = await vscode.window.showQuickPick(
    sessions.map((s) => ({ label: s.name, description: `${s.origin} · ${s.results.length} result(s)`, session: s })),
    { title: 'Scheduled and dispatched results' },
  );
  if (!pick) return;
  const body = [...pick.session.results]
    .reverse()
    .map((r) => `## ${r.at}${r.blockSent ? ' · with pinned knowledge' : ''}\n\n**Prompt:** ${r.prompt}\n\n${r.error ? `**Error:** ${r.error}` : r.answer}`)
    .join('\n\n---\n\n');
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: `# ${pick.label}\n\n${body}\n` });
  await vscode.window.showTextDocument(doc, { preview: true });
}
