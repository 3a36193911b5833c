/**
 * A set of field paths, kept as structured-merge-diff keeps it: a trie whose nodes list the
 * steps that end a path here (members) and the steps that lead further (children), each sorted.
 * A step can be both: `spec` is a member when the struct itself is owned, and a child when
 * fields inside it are. Operations return new sets and never change their operands; only
 * `insert` changes a set, for building one.
 */
import { compareElements, pathText, type PathElement } from './path-element.js';

export type Path = readonly PathElement[];

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/** Where `pe` is in `list` (sorted by `of`), or where it would go, as -(position + 1). */
function search<T>(list: readonly T[], pe: PathElement, of: (item: T) => PathElement): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compareElements(of(list[mid]!), pe);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -(lo + 1);
}
const self = (pe: PathElement): PathElement => pe;
const childElement = (c: Child): PathElement => c.pe;

export class FieldSet {
  constructor(
    readonly members: PathElement[] = [],
    readonly children: Child[] = [],
  ) {}

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** Adds `path` (the empty path, the whole object, is never owned). */
  insert(path: Path): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.descend(path[i]!);
    const last = path[path.length - 1]!;
    const at = search(node.members, last, self);
    if (at < 0) node.members.splice(-at - 1, 0, last);
  }

  /** The child set under `pe`, made empty when there is none. */
  private descend(pe: PathElement): FieldSet {
    const at = search(this.children, pe, childElement);
    if (at >= 0) return this.children[at]!.set;
    const set = new FieldSet();
    this.children.splice(-at - 1, 0, { pe, set });
    return set;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.child(path[i]!);
    return node !== undefined && search(node.members, path[path.length - 1]!, self) >= 0;
  }

  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, self) >= 0;
  }

  child(pe: PathElement): FieldSet | undefined {
    const at = search(this.children, pe, childElement);
    return at >= 0 ? this.children[at]!.set : undefined;
  }

  /** The paths under `pe`, without it. */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? EMPTY;
  }

  empty(): boolean {
    return this.members.length === 0 && this.children.every((c) => c.set.empty());
  }

  size(): number {
    let n = this.members.length;
    for (const c of this.children) n += c.set.size();
    return n;
  }

  union(other: FieldSet): FieldSet {
    if (other.empty()) return this;
    if (this.empty()) return other;
    const members = mergeSorted(this.members, other.members, self, (a) => a);
    const children = mergeSorted(this.children, other.children, childElement, (a, b) => ({ pe: a.pe, set: a.set.union(b.set) }));
    return new FieldSet(members, children);
  }

  intersection(other: FieldSet): FieldSet {
    const members = this.members.filter((pe) => other.hasMember(pe));
    const children: Child[] = [];
    for (const c of this.children) {
      const theirs = other.child(c.pe);
      if (!theirs) continue;
      const both = c.set.intersection(theirs);
      if (!both.empty()) children.push({ pe: c.pe, set: both });
    }
    return new FieldSet(members, children);
  }

  /**
   * The paths of this set not in `other`. A member only leaves for the same member: taking out
   * a parent leaves its children, taking out children leaves the parent.
   */
  difference(other: FieldSet): FieldSet {
    if (other.empty()) return this;
    const members = this.members.filter((pe) => !other.hasMember(pe));
    const children: Child[] = [];
    for (const c of this.children) {
      const theirs = other.child(c.pe);
      if (!theirs) {
        children.push(c);
        continue;
      }
      const rest = c.set.difference(theirs);
      if (!rest.empty()) children.push({ pe: c.pe, set: rest });
    }
    return new FieldSet(members, children);
  }

  /** As difference, but a member of `other` takes everything under it out too. */
  recursiveDifference(other: FieldSet): FieldSet {
    if (other.empty()) return this;
    const members = this.members.filter((pe) => !other.hasMember(pe));
    const children: Child[] = [];
    for (const c of this.children) {
      if (other.hasMember(c.pe)) continue;
      const theirs = other.child(c.pe);
      if (!theirs) {
        children.push(c);
        continue;
      }
      const rest = c.set.recursiveDifference(theirs);
      if (!rest.empty()) children.push({ pe: c.pe, set: rest });
    }
    return new FieldSet(members, children);
  }

  equals(other: FieldSet): boolean {
    if (this.members.length !== other.members.length || this.children.length !== other.children.length) return false;
    for (let i = 0; i < this.members.length; i++) if (compareElements(this.members[i]!, other.members[i]!) !== 0) return false;
    for (let i = 0; i < this.children.length; i++) {
      const a = this.children[i]!;
      const b = other.children[i]!;
      if (compareElements(a.pe, b.pe) !== 0 || !a.set.equals(b.set)) return false;
    }
    return true;
  }

  /** Every path, members of a node before its children, in order (structured-merge-diff's preorder walk). */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (set: FieldSet, prefix: Path): void => {
      for (const pe of set.members) out.push([...prefix, pe]);
      for (const c of set.children) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  toString(): string {
    return this.paths().map(pathText).join('\n');
  }
}

const EMPTY = new FieldSet();
Object.freeze(EMPTY.members);
Object.freeze(EMPTY.children);

/** The union of two sorted lists; `both` combines an item found in each. */
function mergeSorted<T>(a: readonly T[], b: readonly T[], of: (item: T) => PathElement, both: (x: T, y: T) => T): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = compareElements(of(a[i]!), of(b[j]!));
    if (c < 0) out.push(a[i++]!);
    else if (c > 0) out.push(b[j++]!);
    else out.push(both(a[i++]!, b[j++]!));
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
