/**
 * The shared encoding of watch events: a frozen object's line is encoded once per (event type,
 * form) and the same bytes go to every watcher; an object that is not frozen is never cached.
 */
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../src/apiserver/storage/index.js';
import { eventLine, jsonWatchEncoding, type WatchObjectEncoder } from '../../src/apiserver/watch-encoding.js';
import { partialObjectMetadataWatchEncoding, tableWatchEncoding } from '../../src/apiserver/table.js';
import { apiResources } from '../../src/apiserver/resources.js';

const clusterResource = apiResources().find((r) => r.kind === 'Cluster')!;
const object = () => ({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1', resourceVersion: '7', creationTimestamp: '2025-01-01T00:00:00Z' }, spec: { syncMode: 'Push' } });

/** An encoder counting its calls. */
function counting(id: string): WatchObjectEncoder & { calls: number } {
  const encoder = { id, calls: 0, encode: (o: Record<string, unknown>) => (encoder.calls++, o) };
  return encoder;
}

describe('eventLine', () => {
  it('encodes a frozen object once per type and form, and hands every caller the same bytes', () => {
    const shared = deepFreeze(object());
    const json = counting('json');
    const first = eventLine('ADDED', shared, json);
    expect(eventLine('ADDED', shared, json)).toBe(first);
    expect(eventLine('ADDED', shared, counting('json'))).toBe(first);
    expect(json.calls).toBe(1);
    expect(JSON.parse(first.toString())).toEqual({ type: 'ADDED', object: object() });
    expect(first.toString().endsWith('\n')).toBe(true);
    // Another type or another form is another line.
    const modified = eventLine('MODIFIED', shared, json);
    expect(JSON.parse(modified.toString()).type).toBe('MODIFIED');
    const other = counting('other');
    expect(eventLine('ADDED', shared, other)).not.toBe(first);
    expect(other.calls).toBe(1);
  });

  it('never caches an object that is not frozen: it could change under its line', () => {
    const fresh = object();
    const json = counting('json');
    expect(JSON.parse(eventLine('ADDED', fresh, json).toString()).object.spec).toEqual({ syncMode: 'Push' });
    fresh.spec.syncMode = 'Pull';
    expect(JSON.parse(eventLine('ADDED', fresh, json).toString()).object.spec).toEqual({ syncMode: 'Pull' });
    expect(json.calls).toBe(2);
  });

  it('keeps the Table forms with and without column definitions apart, and PartialObjectMetadata versions apart', () => {
    const shared = deepFreeze(object());
    const early = tableWatchEncoding(clusterResource);
    const late = tableWatchEncoding(clusterResource);
    late.next(); // this watcher has sent its headers already
    const withHeaders = JSON.parse(eventLine('ADDED', shared, early.next()).toString());
    const withoutHeaders = JSON.parse(eventLine('ADDED', shared, late.next()).toString());
    expect(withHeaders.object.columnDefinitions).not.toBeNull();
    expect(withoutHeaders.object.columnDefinitions).toBeNull();
    expect(withoutHeaders.object.rows).toEqual(withHeaders.object.rows);
    const v1 = JSON.parse(eventLine('ADDED', shared, partialObjectMetadataWatchEncoding('v1').next()).toString());
    const v1beta1 = JSON.parse(eventLine('ADDED', shared, partialObjectMetadataWatchEncoding('v1beta1').next()).toString());
    expect([v1.object.apiVersion, v1beta1.object.apiVersion]).toEqual(['meta.k8s.io/v1', 'meta.k8s.io/v1beta1']);
    expect(JSON.parse(eventLine('ADDED', shared, jsonWatchEncoding.next()).toString()).object).toEqual(object());
  });
});
