/**
 * The person's memory switch, where every process on this machine can read it. In VS Code the switch lives in the
 * extension's global state (off by default, flipped in the panel or by command); the extension mirrors it, with the
 * memory options, to `<globalStorage>/memory/switch.json` whenever it configures the server. Agents outside VS Code
 * (the MCP server of `session-knowledge mcp`) read it from there: memory is on for them only when the person turned
 * it on. The file is per user, outside the workspace, so a repository cannot turn memory on; a missing, unreadable
 * or malformed file means off. Pure Node, no `vscode`.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { MemoryConfigSchema, type MemoryConfig } from '../../../shared/memorySchemas';
import { readJsonDocument, writeJsonDocument } from '../store/jsonDocument';

export const MEMORY_SWITCH_SCHEMA_VERSION = 1;

const SwitchFileSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  on: z.boolean(),
  options: z.record(z.string(), z.unknown()).optional(),
  updatedAt: z.string().optional(),
});
type SwitchFile = z.infer<typeof SwitchFileSchema>;

export function memorySwitchPath(globalStoragePath: string): string {
  return join(globalStoragePath, 'memory', 'switch.json');
}

/** The switch file as a document of ours: read once and left where it is when unusable (it mirrors VS Code's state). */
function switchDocument(globalStoragePath: string) {
  return {
    path: memorySwitchPath(globalStoragePath),
    schema: SwitchFileSchema,
    currentVersion: MEMORY_SWITCH_SCHEMA_VERSION,
    defaults: (): SwitchFile => ({ schemaVersion: MEMORY_SWITCH_SCHEMA_VERSION, on: false }),
  };
}

const OFF: MemoryConfig = MemoryConfigSchema.parse({ on: false });

/** The switch and options as last written; off (with `problem` saying why, when the file is there but unusable). */
export async function readMemorySwitch(globalStoragePath: string): Promise<{ config: MemoryConfig; problem?: string }> {
  const spec = switchDocument(globalStoragePath);
  const read = await readJsonDocument(spec);
  if (read.state === 'missing') return { config: OFF };
  if (read.state === 'unusable') return { config: OFF, problem: `${read.problem}; memory is off.` };
  const config = MemoryConfigSchema.safeParse({ ...(read.data.options ?? {}), on: read.data.on });
  if (!config.success) return { config: OFF, problem: `${spec.path} has invalid memory options (${config.error.issues[0]?.path.join('.')}); memory is off.` };
  return { config: config.data };
}

/** Writes the switch and options (atomically: a reader sees the old file or the new one). */
export async function writeMemorySwitch(globalStoragePath: string, config: z.input<typeof MemoryConfigSchema>): Promise<void> {
  const { on, ...options } = MemoryConfigSchema.parse(config);
  await writeJsonDocument(switchDocument(globalStoragePath), { schemaVersion: MEMORY_SWITCH_SCHEMA_VERSION, on, options, updatedAt: new Date().toISOString() } satisfies SwitchFile);
}
