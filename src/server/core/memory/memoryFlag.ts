/**
 * The feature flag `SESSION_KNOWLEDGE_MEMORY_ENABLE`, parsed one way for every process that reads it (the
 * extension host decides, and tells the language server through `initializationOptions.memoryEnabled`).
 * Pure: give it the value (or the environment); it reads nothing itself.
 *
 * | value (trimmed, any case)        | memory   |
 * |----------------------------------|----------|
 * | unset, `''`, `0`, `false`        | absent   |
 * | `1`, `true`                      | present  |
 * | anything else (`yes`, `on`, `2`) | absent, with a warning naming the value: a typo never makes memory exist |
 */
export const MEMORY_FLAG = 'SESSION_KNOWLEDGE_MEMORY_ENABLE';

export interface FlagReading {
  /** Whether agent memory exists in this process. */
  present: boolean;
  /** Set when the value was neither an "absent" nor a "present" spelling: say it where the person looks. */
  warning?: string;
}

const ABSENT = new Set(['', '0', 'false']);
const PRESENT = new Set(['1', 'true']);

export function parseMemoryFlag(value: string | undefined): FlagReading {
  if (value === undefined) return { present: false };
  const v = value.trim().toLowerCase();
  if (ABSENT.has(v)) return { present: false };
  if (PRESENT.has(v)) return { present: true };
  const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return {
    present: false,
    warning: `${MEMORY_FLAG}=${shown} is not understood: agent memory is absent. Use 1 or true to enable it, 0, false or nothing to leave it out.`,
  };
}

/** The flag as `env` (e.g. `process.env`) sets it. */
export function readMemoryFlag(env: Readonly<Record<string, string | undefined>>): FlagReading {
  return parseMemoryFlag(env[MEMORY_FLAG]);
}
