/**
 * A field path as a value (apimachinery's field.Path): a parent and one step, a field's name
 * (`.name`), a list's index (`[1]`) or a map's key (`[cpu]`). Built with child(), index() and
 * key(); read step by step with segments() (what object order and a manifest's line lookup
 * walk); rendered as Kubernetes renders it by toString() (`spec.rules[1].name`), once.
 */
export type Segment = string | number;

export class FieldPath {
  /** The object itself: the path of no field. */
  static readonly root = new FieldPath(undefined, '', 'root', '');

  #text: string | undefined;
  #segments: readonly Segment[] | undefined;

  private constructor(
    readonly parent: FieldPath | undefined,
    /** A field's name, an index, or a map key. */
    readonly step: Segment,
    readonly kind: 'root' | 'child' | 'index' | 'key',
    text?: string,
  ) {
    this.#text = text;
  }

  /** The path of fields `names` from the root: FieldPath.of('spec', 'rules') is `spec.rules`. */
  static of(...names: readonly string[]): FieldPath {
    let path = FieldPath.root;
    for (const name of names) path = path.child(name);
    return path;
  }

  child(name: string): FieldPath {
    return new FieldPath(this, name, 'child');
  }

  index(i: number): FieldPath {
    return new FieldPath(this, i, 'index');
  }

  key(k: string): FieldPath {
    return new FieldPath(this, k, 'key');
  }

  /** `spec.rules[1].name`; '' for the root. */
  toString(): string {
    if (this.#text === undefined) {
      const head = this.parent ? this.parent.toString() : '';
      this.#text = this.kind === 'child' ? (head ? `${head}.${this.step}` : String(this.step)) : `${head}[${this.step}]`;
    }
    return this.#text;
  }

  /** The steps from the root: `spec.taints[0].effect` → ['spec', 'taints', 0, 'effect']; a key is a string. */
  segments(): readonly Segment[] {
    if (this.#segments === undefined) {
      const steps: Segment[] = [];
      for (let p: FieldPath | undefined = this; p && p.kind !== 'root'; p = p.parent) steps.push(p.step);
      this.#segments = steps.reverse();
    }
    return this.#segments;
  }

  /** The top-level field the path is in: `spec` for `spec.rules[1].name`; '' for the root. */
  get section(): string {
    const first = this.segments()[0];
    return first === undefined ? '' : String(first);
  }

  /**
   * A path given as text (`spec.rules[1].name`, `metadata.labels[app.kubernetes.io/name]`), read
   * into its steps: a bracket holding digits is an index, any other a key; a dot outside brackets
   * starts a field. Its text is kept as given.
   */
  static parse(text: string): FieldPath {
    let path = FieldPath.root;
    let i = 0;
    while (i < text.length) {
      if (text[i] === '[') {
        const end = text.indexOf(']', i + 1);
        const inside = text.slice(i + 1, end < 0 ? text.length : end);
        path = DIGITS.test(inside) ? path.index(Number(inside)) : path.key(inside);
        i = end < 0 ? text.length : end + 1;
      } else {
        if (text[i] === '.') i++;
        let end = i;
        while (end < text.length && text[end] !== '.' && text[end] !== '[') end++;
        path = path.child(text.slice(i, end));
        i = end;
      }
    }
    return path === FieldPath.root ? path : new FieldPath(path.parent, path.step, path.kind, text);
  }
}

const DIGITS = /^\d+$/;

/** A path, from a FieldPath or a path's text. */
export const asPath = (path: FieldPath | string): FieldPath => (typeof path === 'string' ? FieldPath.parse(path) : path);
