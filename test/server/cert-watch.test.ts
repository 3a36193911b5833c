import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchCertificateFiles, type CertificateWatch } from '../../src/server/cert-watch.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a change that must not wake the watch is given to do so anyway. */
const SETTLE_MS = 400;
/** Waits until `done()` holds (a busy machine may take a while to deliver the events), failing after 10 s. */
async function until(done: () => boolean) {
  for (const start = Date.now(); !done(); await sleep(20)) if (Date.now() - start > 10_000) throw new Error('timed out');
}
const NO_POLL_MS = 60_000;

let watching: CertificateWatch | undefined;
afterEach(() => watching?.close());

function watchCalls(files: string[], pollMs = NO_POLL_MS) {
  const calls = { count: 0 };
  watching = watchCertificateFiles(files, () => void calls.count++, { debounceMs: 20, pollMs });
  return calls;
}

/** A folder as kubelet lays out a Secret volume: each file a link through `..data` into a timestamped folder. */
function secretVolume(contents: string) {
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-secret-'));
  const version = (name: string) => {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'tls.crt'), `${contents} ${name}`);
    writeFileSync(join(dir, name, 'tls.key'), `key ${name}`);
  };
  version('..2026_11_28_01');
  symlinkSync('..2026_11_28_01', join(dir, '..data'));
  symlinkSync('..data/tls.crt', join(dir, 'tls.crt'));
  symlinkSync('..data/tls.key', join(dir, 'tls.key'));
  return {
    files: [join(dir, 'tls.crt'), join(dir, 'tls.key')],
    /** kubelet's update: a new folder, `..data` swapped to it by a rename, the old folder removed. */
    update(name: string) {
      version(name);
      symlinkSync(name, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      rmSync(join(dir, '..2026_11_28_01'), { recursive: true });
    },
    dir,
  };
}

describe('certificate file watch', () => {
  it('is not woken by another file written in the certificates folder (a log, an editor swap file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-certs-'));
    writeFileSync(join(dir, 'tls.crt'), 'cert');
    writeFileSync(join(dir, 'tls.key'), 'key');
    const calls = watchCalls([join(dir, 'tls.crt'), join(dir, 'tls.key')]);
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, 'fleetgate.log'), `line ${i}\n`);
    writeFileSync(join(dir, '.tls.crt.swp'), 'swap');
    await sleep(SETTLE_MS);
    expect(calls.count).toBe(0);
    writeFileSync(join(dir, 'tls.crt'), 'cert 2');
    await until(() => calls.count === 1);
  });

  it('sees files renamed into place, again and again (each rename ends the watch on the file replaced)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-certs-'));
    const files = [join(dir, 'tls.crt'), join(dir, 'tls.key')];
    for (const f of files) writeFileSync(f, 'v0');
    const calls = watchCalls(files);
    for (let round = 1; round <= 3; round++) {
      for (const f of files) {
        writeFileSync(`${f}.new`, `v${round}`);
        renameSync(`${f}.new`, f);
      }
      await until(() => calls.count >= round);
      await sleep(SETTLE_MS);
      // One call per burst: the debounce folds the two renames together.
      expect(calls.count).toBe(round);
    }
  });

  it("sees a Secret volume's update, the ..data link swapped and the old folder removed, twice in a row", async () => {
    const volume = secretVolume('cert');
    const calls = watchCalls(volume.files);
    volume.update('..2026_11_28_02');
    await until(() => calls.count === 1);
    writeFileSync(join(volume.dir, 'unrelated'), 'x');
    await sleep(SETTLE_MS);
    expect(calls.count).toBe(1);
    // The watches now follow the new folder.
    writeFileSync(join(volume.dir, '..2026_11_28_02', 'tls.crt'), 'rewritten');
    await until(() => calls.count === 2);
  });

  it('catches a link repointed at a new file while the old one stays, which no file watch reports, by its periodic check', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-certs-'));
    writeFileSync(join(dir, 'cert1.pem'), 'one');
    writeFileSync(join(dir, 'cert2.pem'), 'two');
    symlinkSync('cert1.pem', join(dir, 'tls.crt'));
    const calls = watchCalls([join(dir, 'tls.crt')], 400);
    symlinkSync('cert2.pem', join(dir, 'tls.crt.tmp'));
    renameSync(join(dir, 'tls.crt.tmp'), join(dir, 'tls.crt'));
    await sleep(150);
    expect(calls.count).toBe(0);
    await until(() => calls.count >= 1);
  });

  it('says once that a missing file cannot be watched, keeps looking, and stops everything on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-certs-'));
    const missing = join(dir, 'tls.crt');
    const said: string[] = [];
    let calls = 0;
    watching = watchCertificateFiles([missing], () => void calls++, { debounceMs: 20, pollMs: 100, unwatchable: (path) => said.push(path) });
    await until(() => calls >= 3);
    expect(said).toEqual([missing]);
    writeFileSync(missing, 'now here');
    const before = calls;
    await until(() => calls > before);
    watching.close();
    const after = calls;
    writeFileSync(missing, 'changed after close');
    await sleep(SETTLE_MS);
    expect(calls).toBe(after);
  });
});
