/**
 * The agent pins of a workspace: every folder's `.knowledge/pins.json`, read and updated as workspace ids (split from
 * `knowledgeCore.ts`). No `vscode`.
 */
import { isAbsolute } from 'node:path';
import type { UpdateDraftPinsResult } from '../../../shared/pinIdSchemas';
import type { KnowledgeFolder, WorkspaceRoots } from '../workspaceRoots';

/**
 * The agent pins of every folder (each folder's `.knowledge/pins.json`), as workspace ids, read now; pins the
 * policy refuses are in `refused` (named with their folder when there are several).
 */
export async function readWorkspaceAgentPins(folders: WorkspaceRoots): Promise<UpdateDraftPinsResult> {
  const read = await Promise.all(folders.all.map(async (f) => ({ f, r: await f.agentPins.read() })));
  return {
    pins: read.flatMap(({ f, r }) => r.pins.map((p) => folders.idOf(f, p))),
    refused: read.flatMap(({ f, r }) => r.refused.map((x) => ({ pin: folders.idOf(f, x.pin), reason: x.reason }))),
  };
}

/**
 * Adds and removes agent pins atomically, each in the `.knowledge/pins.json` of the folder that holds it (so it
 * travels with that folder's repository). Refuses secrets and outside files, as every pin.
 */
export async function updateWorkspaceAgentPins(folders: WorkspaceRoots, add: readonly string[], remove: readonly string[]): Promise<UpdateDraftPinsResult> {
  if (folders.all.length === 0) return { pins: [], refused: add.map((pin) => ({ pin, reason: 'no workspace folder is open' })) };
  const refused: UpdateDraftPinsResult['refused'] = [];
  const changes = new Map<KnowledgeFolder, { add: string[]; remove: string[] }>();
  const of = (f: KnowledgeFolder) => changes.get(f) ?? changes.set(f, { add: [], remove: [] }).get(f)!;
  for (const pin of add) {
    const check = folders.check(pin);
    if (check.ok) of(check.folder).add.push(check.rel);
    else refused.push({ pin, reason: check.reason });
  }
  for (const pin of remove) {
    const check = folders.check(pin);
    const at = check.ok ? check : isAbsolute(pin) ? folders.ofPath(pin) : folders.locate(pin);
    if (at) of(at.folder).remove.push(at.rel);
  }
  for (const [folder, change] of changes) {
    const result = await folder.agentPins.update(change.add, change.remove);
    refused.push(...result.refused.map((r) => ({ pin: r.pin && !isAbsolute(r.pin) ? folders.idOf(folder, r.pin) : r.pin, reason: r.reason })));
  }
  return { pins: (await readWorkspaceAgentPins(folders)).pins, refused };
}
