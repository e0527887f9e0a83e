/**
 * The person's memory switch, where every process on this machine can read it. In VS Code the switch lives in the
 * extension's global state (off by default, flipped in the panel or by command); the extension mirrors it, with the
 * memory options, to `<globalStorage>/memory/switch.json` whenever it configures the server. Agents outside VS Code
 * (the MCP server of `session-knowledge mcp`) read it from there: memory is on for them only when the person turned
 * it on. The file is per user, outside the workspace, so a repository cannot turn memory on; a missing, unreadable
 * or malformed file means off. Pure Node, no `vscode`.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { MemoryConfigSchema, type MemoryConfig } from '../../../shared/memorySchemas';
import { writeFileAtomic } from '../store/atomicFile';

export const MEMORY_SWITCH_SCHEMA_VERSION = 1;

const SwitchFileSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  on: z.boolean(),
  options: z.record(z.string(), z.unknown()).optional(),
  updatedAt: z.string().optional(),
});

export function memorySwitchPath(globalStoragePath: string): string {
  return join(globalStoragePath, 'memory', 'switch.json');
}

const OFF: MemoryConfig = MemoryConfigSchema.parse({ on: false });

/** The switch and options as last written; off (with `problem` saying why, when the file is there but unusable). */
export async function readMemorySwitch(globalStoragePath: string): Promise<{ config: MemoryConfig; problem?: string }> {
  const path = memorySwitchPath(globalStoragePath);
  let raw: string;
  try {
    raw = await fs.readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { config: OFF } : { config: OFF, problem: `${path} cannot be read (${code ?? (err as Error).message}); memory is off.` };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { config: OFF, problem: `${path} is not JSON; memory is off.` };
  }
  const file = SwitchFileSchema.safeParse(json);
  if (!file.success) return { config: OFF, problem: `${path} is not a memory switch file; memory is off.` };
  const config = MemoryConfigSchema.safeParse({ ...(file.data.options ?? {}), on: file.data.on });
  if (!config.success) return { config: OFF, problem: `${path} has invalid memory options (${config.error.issues[0]?.path.join('.')}); memory is off.` };
  return { config: config.data };
}

/** Writes the switch and options (atomically: a reader sees the old file or the new one). */
export async function writeMemorySwitch(globalStoragePath: string, config: z.input<typeof MemoryConfigSchema>): Promise<void> {
  const { on, ...options } = MemoryConfigSchema.parse(config);
  const doc = { schemaVersion: MEMORY_SWITCH_SCHEMA_VERSION, on, options, updatedAt: new Date().toISOString() };
  await writeFileAtomic(memorySwitchPath(globalStoragePath), `${JSON.stringify(doc, null, 2)}\n`);
}
