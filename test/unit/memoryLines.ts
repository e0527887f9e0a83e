/**
 * Lines of a memory `.jsonl` file as the extension writes them, for tests that lay out real files by hand.
 * Not a test file itself (no `.test.ts`): imported by the memory tests.
 */
const AT = '2026-01-01T00:00:00.000Z';

/** One complete, approved entry line; `extra` overrides or adds fields (unknown ones too). */
export function storedLine(id: string, title: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    type: 'fact',
    title,
    body: `${title} body`,
    tags: [],
    provenance: { sourceKind: 'human', identity: 'me', at: AT },
    trust: { state: 'approved', approvedBy: 'me', approvedAt: AT },
    createdAt: AT,
    updatedAt: AT,
    ...extra,
  });
}
