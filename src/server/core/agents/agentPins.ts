/**
 * Agent pins: what agents outside `@knowledge` carry (Claude Code's hook, the MCP server, the Copilot instruction
 * file). Kept in the workspace, `.knowledge/pins.json` (`{"pins": ["…"]}`), so a team can share them through git
 * and every agent process reads the same list. Written through the same atomic, locked, validated document as
 * the rest of the store: two windows (or a window and the CLI) pinning at once lose nothing; a malformed file is
 * moved aside (nothing deleted) and reported, and agents get no pins until it is fixed. The same pin policy as every other pin
 * (`checkPinnable`): secrets and files outside the workspace are refused. Pure Node, no `vscode`.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { JsonDocument } from '../store/jsonDocument';
import { checkPinnable } from '../pinPolicy';
import type { StoreProblem } from '../../../shared/schemas';
import type { UpdateDraftPinsResult } from '../../../shared/pinIdSchemas';

export const AGENT_PINS_FILE = '.knowledge/pins.json';
export const AGENT_PINS_SCHEMA_VERSION = 1;

/** At most this many agent pins: the block has a token budget anyway; the cap keeps a hostile file small. */
export const MAX_AGENT_PINS = 500;

export const AgentPinsDocSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  pins: z.array(z.string().max(1024)).max(MAX_AGENT_PINS).default([]),
});
export type AgentPinsDoc = z.infer<typeof AgentPinsDocSchema>;

export type AgentPinsUpdate = UpdateDraftPinsResult;

export class AgentPinsStore {
  readonly doc: JsonDocument<AgentPinsDoc>;

  constructor(
    readonly workspaceFolder: string,
    onProblem?: (p: StoreProblem) => void,
  ) {
    this.doc = new JsonDocument<AgentPinsDoc>({
      source: 'agent pins',
      path: join(workspaceFolder, AGENT_PINS_FILE),
      confineTo: workspaceFolder, // a committed link never makes us write outside (confinedPath.ts)
      schema: AgentPinsDocSchema,
      currentVersion: AGENT_PINS_SCHEMA_VERSION,
      defaults: () => ({ schemaVersion: AGENT_PINS_SCHEMA_VERSION, pins: [] }),
      // A hand-written `{"pins": [...]}` has no version: it is version 1 as written.
      migrations: { 0: (raw) => raw },
      ...(onProblem ? { onProblem } : {}),
    });
  }

  get path(): string {
    return this.doc.spec.path;
  }

  /**
   * The pins as agents get them, read from disk now: normalised, de-duplicated, and with every pin the policy
   * refuses left out (a hand-edited file naming `.env` pins nothing). `refused` says which and why.
   */
  async read(): Promise<{ pins: string[]; refused: { pin: string; reason: string }[] }> {
    const doc = await this.doc.load();
    return this.normalise(doc.pins);
  }

  private normalise(raw: readonly string[]): { pins: string[]; refused: { pin: string; reason: string }[] } {
    const pins: string[] = [];
    const refused: { pin: string; reason: string }[] = [];
    for (const pin of raw) {
      const check = checkPinnable(this.workspaceFolder, pin);
      if (!check.ok) refused.push({ pin, reason: check.reason });
      else if (!pins.includes(check.id)) pins.push(check.id);
    }
    return { pins, refused };
  }

  /** Adds and removes pins in one locked read-modify-write. Refused pins are reported and change nothing. */
  async update(add: readonly string[], remove: readonly string[]): Promise<AgentPinsUpdate> {
    const accepted: string[] = [];
    const refused: { pin: string; reason: string }[] = [];
    for (const pin of add) {
      const check = checkPinnable(this.workspaceFolder, pin);
      if (check.ok) accepted.push(check.id);
      else refused.push({ pin, reason: check.reason });
    }
    const removeIds = new Set(
      remove.map((pin) => {
        const check = checkPinnable(this.workspaceFolder, pin);
        return check.ok ? check.id : pin;
      }),
    );
    let over = false;
    const doc = await this.doc.update((d) => {
      const next = d.pins.filter((p) => !removeIds.has(p));
      for (const id of accepted) {
        if (next.includes(id)) continue;
        if (next.length >= MAX_AGENT_PINS) {
          over = true;
          continue;
        }
        next.push(id);
      }
      d.pins = next;
    });
    if (over) refused.push({ pin: accepted.find((a) => !doc.pins.includes(a)) ?? '', reason: `at most ${MAX_AGENT_PINS} agent pins` });
    return { pins: this.normalise(doc.pins).pins, refused };
  }

  /** Pins follow a rename made in the editor. Answers how many changed. */
  async rename(oldId: string, newId: string): Promise<number> {
    let changed = 0;
    const hit = (p: string) => p === oldId || p.startsWith(`${oldId}/`);
    const current = await this.doc.load();
    if (!current.pins.some(hit)) return 0;
    await this.doc.update((d) => {
      d.pins = d.pins.map((p) => {
        if (!hit(p)) return p;
        changed += 1;
        return newId + p.slice(oldId.length);
      });
    });
    return changed;
  }
}
