/** A plain JSON object (not null, not an array): the shape of every Kubernetes object and field map. */
export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A Promise of any realm, or any other thenable: what a caller's lookup may answer with. */
export const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { then?: unknown }).then === 'function';
