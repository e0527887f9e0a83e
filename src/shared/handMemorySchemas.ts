/**
 * What a person types to remember something by hand — **Remember…** in the Command Palette
 * (`sessionKnowledge.memory.remember`) and the form in the Knowledge Panel's memory section: a type, a title, a body and
 * where it is kept (project: this workspace's `.knowledge/memory.jsonl`, shared through git; personal: this person's,
 * in every workspace). It is sent as `knowledge/memory/remember` with `source: human`, the one write path every
 * memory write takes (secrets refused, scanned on write and on every read, a flagged entry withheld).
 */
import { z } from 'zod';
import { FolderName, MemoryBody, MemoryTitle, MemoryTypeSchema } from './memorySchemas';

export const HAND_SCOPES = ['project', 'personal'] as const;

export const RememberByHandSchema = z
  .object({
    type: MemoryTypeSchema,
    title: MemoryTitle,
    body: MemoryBody.default(''),
    scope: z.enum(HAND_SCOPES),
    /** Project memory of a multi-root workspace: the folder (by name) whose memory it joins; default the first. */
    folder: FolderName.optional(),
  })
  .strict();
export type RememberByHand = z.input<typeof RememberByHandSchema>;
