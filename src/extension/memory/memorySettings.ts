/**
 * "Session Knowledge: Memory Settings…" — the memory options, edited through a quick pick and kept in global
 * state by MemoryController. Not VS Code settings on purpose: those would appear in the Settings editor even
 * when the feature flag is unset, and memory must be absent then.
 */
import * as vscode from 'vscode';
import type { MemoryController, MemoryOptions } from './memoryController';
import type { PersonalSync } from './settingsSyncBridge';
import { PERSONAL_SYNC_MAX_BYTES } from '../../shared/personalSyncSchemas';

type Item = vscode.QuickPickItem & { edit: () => Promise<Partial<MemoryOptions> | undefined> };

async function askNumber(title: string, value: number, min: number, max: number, integer = true): Promise<number | undefined> {
  const text = await vscode.window.showInputBox({
    title,
    value: String(value),
    validateInput: (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) return integer ? 'A whole number' : 'A number';
      return n < min || n > max ? `Between ${min} and ${max}` : undefined;
    },
  });
  return text === undefined ? undefined : Number(text);
}

export function registerMemorySettings(context: vscode.ExtensionContext, memory: MemoryController, sync?: PersonalSync): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.memory.settings', async () => {
      const o = memory.options();
      const items: Item[] = [
        {
          label: `${memory.isOn() ? '$(check)' : '$(circle-slash)'} Agent memory is ${memory.isOn() ? 'on' : 'off'}`,
          description: memory.isOn() ? 'turn it off' : 'turn it on',
          edit: async () => {
            await memory.setOn(!memory.isOn());
            return undefined;
          },
        },
        { label: `${o.readonly ? '$(lock)' : '$(unlock)'} Read-only: ${o.readonly ? 'yes' : 'no'}`, description: 'refuse every change to memory', edit: async () => ({ readonly: !o.readonly }) },
        {
          label: `$(database) Caps: session ${o.caps.session}, project ${o.caps.project}, personal ${o.caps.personal}`,
          description: 'entries per scope; a full scope asks the agent to consolidate',
          edit: async () => {
            const session = await askNumber('Session scope cap (per session)', o.caps.session, 1, 100_000);
            if (session === undefined) return undefined;
            const project = await askNumber('Project scope cap', o.caps.project, 1, 100_000);
            if (project === undefined) return undefined;
            const personal = await askNumber('Personal scope cap', o.caps.personal, 1, 100_000);
            return personal === undefined ? undefined : { caps: { session, project, personal } };
          },
        },
        {
          label: `$(history) Maximum age: ${o.maxAgeDays === 0 ? 'none' : `${o.maxAgeDays} days`}`,
          description: 'older entries leave recall but stay stored',
          edit: async () => {
            const maxAgeDays = await askNumber('Maximum age in days (0: none)', o.maxAgeDays, 0, 36_500);
            return maxAgeDays === undefined ? undefined : { maxAgeDays };
          },
        },
        {
          label: `$(git-merge) Supersede similarity: ${o.supersedeThreshold}`,
          description: 'a new entry this similar to an active one replaces it in recall',
          edit: async () => {
            const supersedeThreshold = await askNumber('Similarity 0–1 over which a restatement supersedes', o.supersedeThreshold, 0, 1, false);
            return supersedeThreshold === undefined ? undefined : { supersedeThreshold };
          },
        },
        {
          label: `$(symbol-ruler) Memory index budget: ${o.indexBudgetTokens} tokens`,
          description: 'tokens the memory index may use in the block',
          edit: async () => {
            const indexBudgetTokens = await askNumber('Token budget of the memory index', o.indexBudgetTokens, 100, 200_000);
            return indexBudgetTokens === undefined ? undefined : { indexBudgetTokens };
          },
        },
        {
          label: `${o.distillOnCompaction ? '$(check)' : '$(circle-slash)'} Distil on compaction: ${o.distillOnCompaction ? 'on' : 'off'}`,
          description: 'when @knowledge compacts a session, propose its lessons to the memory inbox',
          edit: async () => ({ distillOnCompaction: !o.distillOnCompaction }),
        },
      ];
      if (sync) {
        items.push({
          label: `$(sync) Sync personal memory across machines: ${sync.isOn() ? 'on' : 'off'}`,
          description: sync.isOn() ? 'turn it off' : 'turn it on (Settings Sync)',
          detail: `Approved personal entries only — pending and flagged ones never leave this machine. At most ${PERSONAL_SYNC_MAX_BYTES / 1024} KiB; past it nothing more syncs, and you are told. Arrivals are scanned; edits on two machines keep both revisions; forgetting is per machine.`,
          edit: async () => {
            await sync.setOn(!sync.isOn());
            return undefined;
          },
        });
      }
      const picked = await vscode.window.showQuickPick(items, { title: 'Session Knowledge: Memory Settings' });
      if (!picked) return;
      const change = await picked.edit();
      if (change) await memory.setOptions(change);
    }),
  );
}
