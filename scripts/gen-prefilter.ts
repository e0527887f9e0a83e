/**
 * Writes src/server/core/threat/prefilter.generated.json: each pattern rule's prefilter formula, derived from its
 * regexes, and the keyword automaton's tables, keyed by the rules' sources. The build runs it (scripts/build.mjs), so a bundle never derives them at
 * load; a unit test checks the committed file is current.
 *
 *   node --import tsx scripts/gen-prefilter.ts
 */
import { writeFileSync } from 'node:fs';
import { PATTERN_RULES, storePrefilter } from '../src/server/core/threat/prefilterFormulas';

const out = 'src/server/core/threat/prefilter.generated.json';
writeFileSync(out, `${JSON.stringify(storePrefilter(PATTERN_RULES))}\n`);
console.log(`[gen-prefilter] wrote ${out}`);
