/**
 * A session's name as a person sees it: the name stored with the session (its `label`: a chat's first prompt, a
 * scheduled prompt's name, what another extension passed), else a fallback from when and how it started — never
 * the key. Pure: the server, the extension and the panel all name sessions through here.
 */

/** How many characters of the first prompt a chat's name keeps (an ellipsis marks the cut). */
export const SESSION_NAME_CHARS = 40;

/** The name a chat gets from its first prompt: one line, spaces collapsed, cut to SESSION_NAME_CHARS. Undefined when empty. */
export function nameFromPrompt(prompt: string): string | undefined {
  const line = prompt.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  if (line.length <= SESSION_NAME_CHARS) return line;
  const cut = line.slice(0, SESSION_NAME_CHARS - 1);
  // At a word's end when one is near, so the name does not stop mid-word.
  const space = cut.lastIndexOf(' ');
  return `${(space >= SESSION_NAME_CHARS - 12 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const ORIGIN_WORD = { chat: 'Chat', api: 'Session', dispatch: 'Dispatched chat', schedule: 'Scheduled run' } as const;

const two = (n: number) => String(n).padStart(2, '0');

/** The fallback of a session stored without a name (files written before sessions had names): "Chat of 2026-12-03 17:44". */
export function fallbackSessionName(session: { createdAt: string; origin?: keyof typeof ORIGIN_WORD }): string {
  const word = ORIGIN_WORD[session.origin ?? 'chat'] ?? 'Session';
  const at = new Date(session.createdAt);
  if (Number.isNaN(at.getTime())) return `${word} without a name`;
  return `${word} of ${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
}

/** The session's name: the stored one, else the fallback. */
export function sessionName(session: { label?: string | null; createdAt: string; origin?: keyof typeof ORIGIN_WORD }): string {
  const stored = session.label?.trim();
  return stored ? stored : fallbackSessionName(session);
}
