/**
 * Tells the server when its certificate files may have changed, waking it for those files only.
 *
 * A watch on their folder would wake the process for every file written there (its own log, an
 * editor's swap file). A watch on a file follows its symlinks to the file itself, so it sees a
 * change made in place; a file replaced by a rename, or by a Secret volume's `..data` swap (which
 * then deletes the old files), ends its watch with it. So every change re-arms the watches on what
 * the paths lead to now. A change no watch reports (a symlink repointed at a new file while the old
 * one stays, as certbot does; a file missing for a moment when re-armed) is caught by a check every
 * `pollMs`, as controller-runtime's certificate watcher does.
 */
import { watch, type FSWatcher } from 'node:fs';

export interface CertificateWatch {
  close(): void;
}

export interface WatchOptions {
  /** Certificate writers change several files in a burst: one call after it settles. */
  debounceMs: number;
  pollMs: number;
  /** A path that cannot be watched right now (the next change or poll tries again); said once until it can be again. */
  unwatchable?: (path: string, err: Error) => void;
}

/** Calls `changed` (debounced) when any of `files` may have changed, and every `pollMs` in any case. */
export function watchCertificateFiles(files: readonly string[], changed: () => void, options: WatchOptions): CertificateWatch {
  let watchers: FSWatcher[] = [];
  let pending: NodeJS.Timeout | undefined;
  let closed = false;
  const failing = new Set<string>();

  const arm = () => {
    for (const w of watchers) w.close();
    watchers = [];
    for (const file of files) {
      try {
        watchers.push(watch(file, soon).on('error', soon));
        failing.delete(file);
      } catch (err) {
        if (!failing.has(file)) options.unwatchable?.(file, err as Error);
        failing.add(file);
      }
    }
  };
  const check = () => {
    if (closed) return;
    arm();
    changed();
  };
  function soon() {
    clearTimeout(pending);
    pending = setTimeout(check, options.debounceMs);
  }

  arm();
  const poll = setInterval(check, options.pollMs).unref();
  return {
    close() {
      closed = true;
      clearTimeout(pending);
      clearInterval(poll);
      for (const w of watchers) w.close();
    },
  };
}
