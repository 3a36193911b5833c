/**
 * The child of durability.test.ts: opens the durable store in argv[2] and writes until it is
 * killed, creates and updates from several concurrent writers, printing one JSON line per write
 * only after the write was acknowledged: {"key","revision","n"} (n counts the key's writes).
 */
import { openDurableStorage } from '../../../src/apiserver/storage/durable.js';
import type { StoredObject } from '../../../src/apiserver/storage/storage.js';

const prefix = '/durability.example/things/ns/';
const [directory, round, seedText] = process.argv.slice(2);
let seed = Number(seedText) >>> 0;
const next = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 4294967296;
};

const storage = await openDurableStorage({ directory: directory! });
const keys = (await storage.list(prefix)).items.map((item) => `${prefix}${(item.metadata as { name: string }).name}`);
const counterOf = (object: StoredObject) => (object.spec as { n: number }).n;
// Payloads from 100 bytes to 6 KB: a batch of several writes then spans LevelDB's 32 KB log blocks.
const payload = () => 'x'.repeat(100 + Math.floor(next() * 6_000));
const report = (object: StoredObject, key: string) =>
  process.stdout.write(`${JSON.stringify({ key, revision: Number((object.metadata as { resourceVersion: string }).resourceVersion), n: counterOf(object) })}\n`);

let created = 0;
async function writer(id: number): Promise<never> {
  for (;;) {
    if (keys.length < 5 || next() < 0.3) {
      const name = `r${round}-w${id}-${created++}`;
      const key = `${prefix}${name}`;
      const object = await storage.create(key, { kind: 'Thing', metadata: { name, namespace: 'ns' }, spec: { n: 0, payload: payload() } });
      keys.push(key);
      report(object, key);
    } else {
      const key = keys[Math.floor(next() * keys.length)]!;
      const { object } = await storage.guaranteedUpdate(key, (current) => ({ ...current, spec: { n: counterOf(current) + 1, payload: payload() } }));
      report(object, key);
    }
  }
}

await Promise.all(Array.from({ length: 8 }, (_, id) => writer(id)));
