/**
 * A separate process that writes to a store document, for the store's multi-process tests.
 * usage: node --import tsx storeWorker.ts <mode> <storagePath> <workspace> <tag> <count>
 *   append  — adds `<tag>-<i>` to the draft pins, `count` times, each in its own update (another window)
 *   create  — creates `count` sessions labelled `<tag>-<i>` through the session service
 *   churn   — rewrites a large document atomically forever (killed by the test mid-write)
 *   migrate — opens the store (splitting an old sessions.json) and kills itself with SIGKILL after writing
 *             `count` session files: a crash halfway through the migration
 *   mark    — records a delivery on session `<tag>` `count` times (`v1:<pid>-<i>`), each its own update
 * `append` and `create` print `ack <tag>-<i>` once each write has returned (an acknowledged write), then `done`.
 */
import { KnowledgeCore } from '../../src/server/core/knowledgeCore';
import { writeFileAtomic } from '../../src/server/core/store/atomicFile';

async function main(): Promise<void> {
  const [mode, storage, workspace, tag, countText] = process.argv.slice(2);
  if (!mode || !storage || !workspace || !tag) throw new Error('usage: storeWorker <mode> <storage> <workspace> <tag> <count>');
  if (mode === 'append') {
    const core = new KnowledgeCore({ workspaceFolder: workspace, globalStoragePath: storage });
    await core.load();
    const count = Number(countText);
    for (let i = 0; i < count; i++) {
      await core.sessions.updateIndex((doc) => {
        doc.draftPins.push(`${tag}-${i}`);
      });
      process.stdout.write(`ack ${tag}-${i}\n`);
    }
    process.stdout.write('done\n');
    return;
  }
  if (mode === 'create') {
    const core = new KnowledgeCore({ workspaceFolder: workspace, globalStoragePath: storage });
    await core.load();
    const count = Number(countText);
    for (let i = 0; i < count; i++) {
      await core.sessionService.create({ label: `${tag}-${i}`, origin: 'api' });
      process.stdout.write(`ack ${tag}-${i}\n`);
    }
    process.stdout.write('done\n');
    return;
  }
  if (mode === 'migrate') {
    const count = Number(countText);
    const core = new KnowledgeCore({
      workspaceFolder: workspace,
      globalStoragePath: storage,
      onMigrateProgress: (written) => {
        if (written >= count) process.kill(process.pid, 'SIGKILL');
      },
    });
    await core.load();
    process.stdout.write('done\n');
    return;
  }
  if (mode === 'mark') {
    const core = new KnowledgeCore({ workspaceFolder: workspace, globalStoragePath: storage });
    await core.load();
    const count = Number(countText);
    for (let i = 0; i < count; i++) {
      await core.sessionService.appendResult(tag, { at: new Date().toISOString(), prompt: `${process.pid}-${i}`, answer: '', blockSent: false });
      process.stdout.write(`ack ${process.pid}-${i}\n`);
    }
    process.stdout.write('done\n');
    return;
  }
  if (mode === 'churn') {
    // storage is the target file here; every version is a self-consistent JSON document.
    for (let version = 0; ; version++) {
      const payload = { version, filler: String(version % 10).repeat(16_000_000) };
      await writeFileAtomic(storage, JSON.stringify(payload));
      if (version === 0) process.stdout.write('started\n');
    }
  }
  throw new Error(`unknown mode ${mode}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
