/**
 * Where storage keys live in etcd, as kube-apiserver lays them out: `--etcd-prefix` (default
 * `/registry`) followed by the storage key, so `/cluster.karmada.io/clusters/member1` is
 * `/registry/cluster.karmada.io/clusters/member1` and a namespaced object carries its namespace
 * segment. Keys are UTF-8 bytes; etcd orders them bytewise, which is the storage contract's order
 * for the ASCII names the API server makes.
 */
import { prefixEnd } from './key-index.js';
import type { Key } from './storage.js';

export const DEFAULT_ETCD_PREFIX = '/registry';

export class EtcdKeyspace {
  /** The prefix without a trailing slash ('' for the root). */
  readonly root: string;

  constructor(prefix: string = DEFAULT_ETCD_PREFIX) {
    if (!prefix.startsWith('/')) throw new RangeError(`--etcd-prefix must start with "/", got "${prefix}"`);
    this.root = prefix.replace(/\/+$/, '');
  }

  key(key: Key): Buffer {
    return Buffer.from(this.root + key);
  }

  /** The end of the range holding every key under `prefix` (exclusive). */
  rangeEnd(prefix: Key): Buffer {
    return Buffer.from(this.root + prefixEnd(prefix)!);
  }

  /** The storage key of an etcd key under the root. */
  storageKey(etcdKey: Buffer): Key {
    return etcdKey.toString('utf8').slice(this.root.length);
  }

  /**
   * The prefix one etcd watch and one watch cache serve: the kind's, `/<group>/<plural>/`, for
   * any key or prefix under it; a wider prefix (`/`, `/<group>/`) gets its own.
   */
  static feedPrefix(key: Key): Key {
    const [, group, plural] = key.split('/', 3);
    if (group && plural) return `/${group}/${plural}/`;
    return key.slice(0, key.lastIndexOf('/') + 1);
  }
}
