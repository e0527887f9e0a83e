/**
 * The one reading and writing of our own JSON files (`jsonDocument.ts`), against real files: the read-once form that
 * leaves an unusable file where it is (the memory switch), the atomic whole-file write, the shared parse with what is
 * wrong named, and the agents' JSON object files (`jsonObjectFile.ts`) built on it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { JsonDocument, MalformedDocumentError, parseJsonDocument, parseJsonObject, readJsonDocument, writeJsonDocument } from '../../src/server/core/store/jsonDocument';
import { memorySwitchPath, readMemorySwitch, writeMemorySwitch } from '../../src/server/core/memory/memorySwitch';
import { CLAUDE_SETTINGS_FILE, uninstallClaudeCodeHook } from '../../src/server/core/agents/claudeSettings';

const folder = () => mkdtempSync(join(tmpdir(), 'sk-json-doc-'));

const Schema = z.looseObject({ schemaVersion: z.number().int().min(1), names: z.array(z.string()).default([]) });
const specAt = (path: string) => ({ path, schema: Schema, currentVersion: 2, migrations: { 1: (raw: Record<string, unknown>) => ({ ...raw, names: raw.list ?? [] }) }, defaults: () => ({ schemaVersion: 2, names: [] as string[] }) });

test('the memory switch, malformed, says what is wrong with it, and is left where it is (it mirrors VS Code, nothing is set aside)', async () => {
  const storage = folder();
  mkdirSync(join(storage, 'memory'));
  const path = memorySwitchPath(storage);
  const cases: [string, RegExp][] = [
    ['{', /is malformed \(not valid JSON \(.+\)\); memory is off\.$/],
    ['[true]', /is malformed \(the root is not a JSON object\); memory is off\.$/],
    ['{"schemaVersion":1,"on":"yes"}', /is malformed \(does not match the schema at on: .+\); memory is off\.$/],
    ['{"on":true}', /is malformed \(no migration from schema version 0\); memory is off\.$/],
  ];
  for (const [text, why] of cases) {
    writeFileSync(path, text);
    const r = await readMemorySwitch(storage);
    assert.equal(r.config.on, false, text);
    assert.match(r.problem ?? '', why, text);
    assert.ok(r.problem!.startsWith(path), 'the problem names the file');
    assert.equal(readFileSync(path, 'utf8'), text, 'left byte for byte');
    assert.deepEqual(readdirSync(join(storage, 'memory')), ['switch.json'], 'nothing set aside, no temp file');
  }
});

test('the memory switch is a FIFO: read as off at once, never waited on', { skip: process.platform === 'win32' }, async () => {
  const storage = folder();
  mkdirSync(join(storage, 'memory'));
  execFileSync('mkfifo', [memorySwitchPath(storage)]);
  const r = await Promise.race([readMemorySwitch(storage), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 3000).unref())]);
  assert.notEqual(r, 'hung', 'a FIFO with no writer is not waited on');
  if (r === 'hung') return;
  assert.equal(r.config.on, false);
  assert.match(r.problem ?? '', /is not a regular file; it was not read; memory is off\./);
});

test('the memory switch is written as every document of ours is, and read back', async () => {
  const storage = folder();
  await writeMemorySwitch(storage, { on: true, indexBudgetTokens: 700 });
  const text = readFileSync(memorySwitchPath(storage), 'utf8');
  assert.match(text, /^\{\n {2}"schemaVersion": 1,\n {2}"on": true,/);
  assert.ok(text.endsWith('}\n'));
  assert.deepEqual(readdirSync(join(storage, 'memory')), ['switch.json'], 'no temp file left behind');
  const r = await readMemorySwitch(storage);
  assert.equal(r.config.on, true);
  assert.equal(r.config.indexBudgetTokens, 700);
});

test('readJsonDocument: missing, migrated, newer version kept, unusable named; writeJsonDocument writes what JsonDocument writes', async () => {
  const dir = folder();
  const path = join(dir, 'doc.json');
  assert.deepEqual(await readJsonDocument(specAt(path)), { state: 'missing', data: { schemaVersion: 2, names: [] } });
  writeFileSync(path, '{"schemaVersion":1,"list":["a"]}');
  assert.deepEqual((await readJsonDocument(specAt(path))).data, { schemaVersion: 2, list: ['a'], names: ['a'] });
  writeFileSync(path, '{"schemaVersion":7,"names":["b"],"future":1}');
  const newer = await readJsonDocument(specAt(path));
  assert.equal(newer.state, 'newer-version');
  assert.deepEqual(newer.data, { schemaVersion: 7, names: ['b'], future: 1 }, 'unknown fields kept');
  writeFileSync(path, '{"schemaVersion":2,"names":[3]}');
  const bad = await readJsonDocument(specAt(path));
  assert.equal(bad.state, 'unusable');
  assert.equal(bad.state === 'unusable' && bad.problem, `${path} is malformed (does not match the schema at names.0: Invalid input: expected string, received number)`);
  assert.ok(existsSync(path), 'left where it is');

  await writeJsonDocument(specAt(path), { schemaVersion: 2, names: ['x'] });
  const viaDoc = new JsonDocument({ ...specAt(join(dir, 'other.json')), source: 'test' });
  await viaDoc.update((d) => {
    d.names = ['x'];
  });
  assert.equal(readFileSync(path, 'utf8'), readFileSync(join(dir, 'other.json'), 'utf8'), 'one text for every document');
});

test('parseJsonObject / parseJsonDocument name the kind of problem', () => {
  const kind = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      assert.ok(MalformedDocumentError.is(err));
      return err.problem;
    }
    return 'parsed';
  };
  assert.equal(kind(() => parseJsonObject('{')), 'not-json');
  assert.equal(kind(() => parseJsonObject('null')), 'not-an-object');
  assert.equal(kind(() => parseJsonObject('[]')), 'not-an-object');
  assert.equal(kind(() => parseJsonDocument('{"schemaVersion":2,"names":{}}', specAt('x'))), 'schema');
  assert.deepEqual(parseJsonDocument('{"names":["n"]}', { schema: z.object({ names: z.array(z.string()) }) }), { names: ['n'] }, 'no version: the schema alone');
});

test('hook uninstall: no settings file creates nothing; a file that is not JSON is refused with what to do, left byte for byte', async () => {
  const ws = folder();
  assert.deepEqual(await uninstallClaudeCodeHook(ws), { path: join(ws, CLAUDE_SETTINGS_FILE), changed: false });
  assert.deepEqual(readdirSync(ws), [], 'not even .claude/ is created');
  mkdirSync(join(ws, '.claude'));
  const broken = '{ "hooks": { ';
  writeFileSync(join(ws, CLAUDE_SETTINGS_FILE), broken);
  await assert.rejects(uninstallClaudeCodeHook(ws), /settings\.local\.json is not valid JSON \(.+\); it was left as it is\. Fix it, then uninstall the hook again\./);
  assert.equal(readFileSync(join(ws, CLAUDE_SETTINGS_FILE), 'utf8'), broken);
  for (const notObject of ['[1]', 'null']) {
    writeFileSync(join(ws, CLAUDE_SETTINGS_FILE), notObject);
    assert.equal((await uninstallClaudeCodeHook(ws)).changed, false, 'nothing of ours in it');
    assert.equal(readFileSync(join(ws, CLAUDE_SETTINGS_FILE), 'utf8'), notObject);
  }
  assert.deepEqual(readdirSync(join(ws, '.claude')), ['settings.local.json'], 'no lock or temp file left');
});

test('a document without a schema version (a cache with its own format field): the schema alone decides; written compact on request', async () => {
  const path = join(folder(), 'cache.json');
  const Cache = z.looseObject({ format: z.literal(1), clean: z.array(z.string()) });
  const spec = { path, schema: Cache, defaults: () => ({ format: 1 as const, clean: [] as string[] }) };
  await writeJsonDocument(spec, { format: 1, clean: ['h1'] }, { compact: true });
  assert.equal(readFileSync(path, 'utf8'), '{"format":1,"clean":["h1"]}');
  assert.deepEqual(await readJsonDocument(spec), { state: 'ok', data: { format: 1, clean: ['h1'] } });
  writeFileSync(path, '{"format":2,"clean":[]}');
  const other = await readJsonDocument(spec);
  assert.equal(other.state, 'unusable');
  assert.deepEqual(other.data, { format: 1, clean: [] }, 'the defaults');
});
