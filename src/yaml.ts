/** YAML parsing options shared by everything that reads manifests. */
import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';

/**
 * YAML as kubectl reads it (go-yaml v2 then JSON): YAML 1.1 scalars such as `yes`/`no`,
 * but timestamps stay strings and `22:22` is not a base-60 number.
 */
export const KUBECTL_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) => tags.filter((t) => !(typeof t === 'object' && (t.tag === 'tag:yaml.org,2002:timestamp' || t.format === 'TIME'))),
};
