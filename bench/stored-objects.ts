/**
 * Realistic stored objects for the storage benchmark: the test fixtures' example of every kind,
 * each given a unique name, a namespace where the kind is namespaced, and the metadata
 * kube-apiserver and `kubectl apply` add (uid, creationTimestamp, generation, the
 * last-applied-configuration annotation, which roughly doubles an object).
 */
import { randomUUID } from 'node:crypto';
import { kindsFor } from '../rules/index.js';
import { examples } from '../test/fixtures/index.js';

type Obj = Record<string, any>;

const kinds = new Map(kindsFor().map((info) => [info.kind, info]));
const templates = examples.filter((example) => kinds.has(example.kind as string));

/** The `index`-th object and its storage key (`/<group>/<plural>[/<namespace>]/<name>`). */
export function storedObject(index: number, created = new Date(1_700_000_000_000 + index * 1000)): { key: string; object: Obj } {
  const template = templates[index % templates.length]!;
  const info = kinds.get(template.kind as string)!;
  const object = structuredClone(template) as Obj;
  const name = `${object.metadata.name}-${index}`;
  const namespace = info.scope === 'Namespaced' ? `team-${index % 20}` : undefined;
  object.metadata = { ...object.metadata, name, ...(namespace ? { namespace } : {}) };
  const applied = JSON.stringify(object);
  object.metadata = {
    ...object.metadata,
    uid: randomUUID(),
    generation: 1,
    creationTimestamp: created.toISOString().replace(/\.\d+Z$/, 'Z'),
    annotations: { ...object.metadata.annotations, 'kubectl.kubernetes.io/last-applied-configuration': `${applied}\n` },
  };
  const key = namespace ? `/${info.group}/${info.plural}/${namespace}/${name}` : `/${info.group}/${info.plural}/${name}`;
  return { key, object };
}

/** The prefix every stored object's key starts with. */
export const everything = '/';
