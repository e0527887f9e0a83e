/**
 * Runtime helpers between the API's pin shape and the flat list of ids the server keeps. They live here, not
 * in api.ts: api.ts is types only, because it ships as dist/api.d.ts and no shipped module exports functions.
 */
import type { Pins } from './api';
import { pinKind } from '../server/core/notes/pinKind';

/** Splits a flat list of pinned ids into the API's shape. */
export function toPins(ids: readonly string[]): Pins {
  const pins: Pins = { notes: [], plans: [], files: [] };
  for (const id of ids) {
    // A folder's name may start the id (a workspace of several folders).
    const kind = pinKind(id, true);
    if (kind === 'note') pins.notes.push(id);
    else if (kind === 'plan') pins.plans.push(id);
    else pins.files!.push(id);
  }
  return pins;
}

/** Flattens the API's pins into one ordered list: notes, plans, files. */
export function fromPins(pins: Pins | undefined): string[] {
  if (!pins) return [];
  return [...(pins.notes ?? []), ...(pins.plans ?? []), ...(pins.files ?? [])];
}
