/**
 * The bounds of a recursive walk over decoded JSON (holdsNull, sameJson). Such a walk needs no
 * set of the objects seen, because decoded JSON is a tree of modest depth; a value deeper than
 * TREE_DEPTH or larger than TREE_OBJECTS (a library caller's value that refers to itself or shares
 * parts, never decoded JSON) makes the walk return GAVE_UP, and the caller walks it again with its
 * own stack, which ends on any value.
 */

/** Deeper than decoded Kubernetes objects go, and far from the call stack's limit. */
export const TREE_DEPTH = 256;
/** Objects (or pairs of them) a walk looks into before it gives up: values that share parts could otherwise cost exponentially many. */
export const TREE_OBJECTS = 1_000_000;
/** A bounded walk's answer when it went past TREE_DEPTH or TREE_OBJECTS. */
export const GAVE_UP = -2;
