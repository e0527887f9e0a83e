/**
 * A clean copy of this checkout, as a fresh `git clone` has it: the files git tracks (plus new, not-ignored ones)
 * and nothing built — no dist/, no dist-package/, no out/. `node_modules` is a link to this checkout's (the tests
 * never run `npm install`). Also: the names inside a .zip (a .vsix), read from its central directory.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '../..');

/** Copies the checkout's files into a new temp folder; answers the copy's root. */
export function cleanClone(prefix = 'sk-clone-'): string {
  const dest = join(mkdtempSync(join(tmpdir(), prefix)), 'clone');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  for (const rel of new Set(listed.split('\0').filter(Boolean))) {
    const from = join(REPO_ROOT, rel);
    if (!existsSync(from) || !lstatSync(from).isFile()) continue; // deleted in the work tree, or a link
    mkdirSync(dirname(join(dest, rel)), { recursive: true });
    copyFileSync(from, join(dest, rel));
  }
  symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules')), join(dest, 'node_modules'), 'dir');
  return dest;
}

/** Every entry name in a zip file (a .vsix is one), from its end-of-central-directory record. */
export function zipEntries(file: string): string[] {
  const buf = readFileSync(file);
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file} is not a zip file (no end-of-central-directory record)`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: central directory entry ${n} is damaged`);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    names.push(buf.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}
