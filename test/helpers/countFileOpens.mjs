/**
 * Preloaded into a server process (`NODE_OPTIONS=--import …`) by tests that count how often a file is read: every
 * open of a path containing `SK_COUNT_OPENS_OF` appends that path to the file `SK_COUNT_OPENS_LOG`. It counts at
 * Node's `fs`, below all of our code, so it measures the same way on any version of the server.
 */
import fs from 'node:fs';

const target = process.env.SK_COUNT_OPENS_OF;
const log = process.env.SK_COUNT_OPENS_LOG;
if (target && log) {
  const note = (path) => {
    const p = path instanceof URL ? path.pathname : String(path);
    if (p.includes(target)) fs.appendFileSync(log, `${p}\n`);
  };
  for (const [owner, name] of [
    [fs, 'open'],
    [fs, 'openSync'],
    [fs, 'readFile'],
    [fs, 'readFileSync'],
    [fs, 'createReadStream'],
    [fs.promises, 'open'],
    [fs.promises, 'readFile'],
  ]) {
    const original = owner[name];
    owner[name] = function (path, ...rest) {
      if (typeof path === 'string' || path instanceof URL) note(path);
      return original.call(this, path, ...rest);
    };
  }
}
