/**
 * What a person is told once they remembered something by hand (Remember… in the Command Palette and in the Knowledge
 * Panel): where it is kept, and when it reads as an instruction, that it is stored but withheld, naming the rules.
 * Pure (the webview bundles it too).
 */
import type { MemoryEntryView } from './memorySchemas';

export function rememberedMessage(e: Pick<MemoryEntryView, 'title' | 'scope' | 'folder' | 'flagged' | 'findings'>, reviewWhere = ''): string {
  const where = e.scope === 'personal' ? 'your personal memory' : `${e.folder !== undefined ? `${e.folder}'s ` : ''}project memory`;
  if (!e.flagged) return `Remembered “${e.title}” in ${where}.`;
  const rules = [...new Set(e.findings.map((f) => f.ruleId))].join(', ');
  return `Remembered “${e.title}” in ${where}, but it reads as an instruction (${rules}), so it is withheld from every model until you mark it reviewed${reviewWhere ? ` ${reviewWhere}` : ''}.`;
}
