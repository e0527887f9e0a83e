/**
 * Pin ids on the wire: the one rule for what a pin id may hold (`pinIdProblem`, `PinIdSchema`), and the pin-list
 * updates (draft pins, agent pins, a rename) that carry them.
 */
import { z } from 'zod';

/** Longest pin id accepted (a workspace-relative path, or an absolute path inside the workspace). */
export const PIN_ID_MAX = 1024;
/**
 * What no pin id may hold: control characters and line breaks (C0, DEL, C1, U+2028/U+2029), bidi controls,
 * and angle brackets with their full-width and small look-alikes. Ids are interpolated into the knowledge
 * block, notices and messages; none of these belongs in a file path a person pins.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a pin id must not hold
const PIN_ID_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069<>\ufe64\ufe65\uff1c\uff1e]/;
const PIN_ID_FORBIDDEN_ALL = new RegExp(PIN_ID_FORBIDDEN.source, 'g');

/** A pin id as an error message may show it: JSON-quoted, shortened, every forbidden character as `\uXXXX`. */
export function quotePinId(id: string): string {
  const short = id.length > 160 ? `${id.slice(0, 160)}…` : id;
  return `"${short.replace(/["\\]/g, (c) => `\\${c}`).replace(PIN_ID_FORBIDDEN_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

function describeForbidden(c: string): string {
  if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029' || c === '\u0085') return 'a line break';
  if (/[<>\ufe64\ufe65\uff1c\uff1e]/.test(c)) return 'an angle bracket';
  if (/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(c)) return 'a bidi control character';
  return 'a control character';
}

/** Why `id` cannot be a pin id (a sentence naming it), or undefined when it can. The one rule, at every boundary. */
export function pinIdProblem(id: string): string | undefined {
  if (id.length === 0) return 'a pin id is empty';
  if (id.length > PIN_ID_MAX) return `pin id ${quotePinId(id)} is longer than ${PIN_ID_MAX} characters`;
  const bad = PIN_ID_FORBIDDEN.exec(id);
  if (bad) return `pin id ${quotePinId(id)} holds ${describeForbidden(bad[0])}: a pin is a workspace path without control characters, line breaks or angle brackets`;
  return undefined;
}

/**
 * A pin id on the wire: a workspace-relative path (or an absolute path inside the workspace, which the server
 * turns into one), 1–{@link PIN_ID_MAX} characters, no control characters, line breaks or angle brackets.
 * Every pin param of the protocol uses it: a bad id is refused with an error that names it, and nothing changes.
 */
export const PinIdSchema = z.string().superRefine((id, ctx) => {
  const problem = pinIdProblem(id);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
/** Add and/or remove draft pins in one atomic update. Entries are workspace-relative ids or absolute paths. */
export const UpdateDraftPinsParamsSchema = z
  .object({ add: z.array(PinIdSchema).max(200).default([]), remove: z.array(PinIdSchema).max(200).default([]) })
  .strict();
export type UpdateDraftPinsParams = z.input<typeof UpdateDraftPinsParamsSchema>;

export const UpdateDraftPinsResultSchema = z.object({
  pins: z.array(z.string()),
  /** Pins refused, each with the reason (secret file, outside the workspace). Nothing else changed for them. */
  refused: z.array(z.object({ pin: z.string(), reason: z.string() })),
});
export type UpdateDraftPinsResult = z.infer<typeof UpdateDraftPinsResultSchema>;

/** A list of pin ids, as every pin list of the protocol carries it. */
export const PinList = z.array(PinIdSchema).max(500);

/** Add and/or remove agent pins (`.knowledge/pins.json`) in one atomic update; same ids as every pin list. */
export const UpdateAgentPinsParamsSchema = z.object({ add: PinList.default([]), remove: PinList.default([]) }).strict();
export type UpdateAgentPinsParams = z.input<typeof UpdateAgentPinsParamsSchema>;

export const RenamePinParamsSchema = z.object({ oldId: PinIdSchema, newId: PinIdSchema }).strict();
export type RenamePinParams = z.infer<typeof RenamePinParamsSchema>;
