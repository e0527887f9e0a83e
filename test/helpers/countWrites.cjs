/**
 * Preloaded into a server process (`NODE_OPTIONS=--require …/countWrites.cjs`, `SK_COUNT_WRITES=<file>`): appends one
 * line to that file for every fsync of a regular file (a durable write: each atomic write of the store is temp +
 * fsync + rename) and for every rename, so a test or the bench counts what a sequence of requests wrote. Folder
 * fsyncs are not counted (they make a rename durable; the write itself is counted once).
 */
'use strict';
/* global require, process, __filename */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload (`--require`), run before any bundle */
const fs = require('node:fs');
const { basename } = require('node:path');

const out = process.env.SK_COUNT_WRITES;
if (out) {
  const log = (line) => fs.appendFileSync(out, `${line}\n`);
  const isFile = (fd) => {
    try {
      return fs.fstatSync(fd).isFile();
    } catch {
      return false;
    }
  };
  const fsync = fs.fsync;
  fs.fsync = function (fd, cb) {
    if (isFile(fd)) log('fsync');
    return fsync.call(this, fd, cb);
  };
  const fsyncSync = fs.fsyncSync;
  fs.fsyncSync = function (fd) {
    if (isFile(fd)) log('fsync');
    return fsyncSync.call(this, fd);
  };
  const renameSync = fs.renameSync;
  fs.renameSync = function (from, to) {
    log(`rename ${basename(String(to))}`);
    return renameSync.call(this, from, to);
  };
  const rename = fs.promises.rename;
  fs.promises.rename = function (from, to) {
    log(`rename ${basename(String(to))}`);
    return rename.call(this, from, to);
  };
  // FileHandle is not exported: patch its prototype through the first handle (before any request arrives).
  void fs.promises.open(__filename, 'r').then((handle) => {
    const proto = Object.getPrototypeOf(handle);
    const sync = proto.sync;
    proto.sync = async function () {
      const st = await this.stat().catch(() => null);
      if (st && st.isFile()) log('fsync');
      return sync.call(this);
    };
    return handle.close();
  });
}
