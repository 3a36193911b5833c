/** A plain JSON object (not null, not an array): the shape of every Kubernetes object and field map. */
export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
