/**
 * YAML as kubectl reads it (go-yaml v2, then JSON): YAML 1.1 booleans (`yes`, `on`, `y`)
 * and integers (`0755` is octal), merge keys, but timestamps stay strings and `22:22`
 * is not a base-60 number. Two parsers share these rules: js-yaml reads manifests, and
 * the `yaml` package reads `fleetgate test` suites, whose checks need its document model.
 */
import jsyaml from 'js-yaml';
import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';

export const KUBECTL_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) => tags.filter((t) => !(typeof t === 'object' && (t.tag === 'tag:yaml.org,2002:timestamp' || t.format === 'TIME'))),
};

const TRUE = /^(?:y|Y|yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const FALSE = /^(?:n|N|no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const bool11 = new jsyaml.Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  // Every plain scalar of a document is offered to this resolver: rule most out by length first.
  resolve: (data: string | null) => data !== null && data.length <= 5 && (TRUE.test(data) || FALSE.test(data)),
  construct: (data: string) => TRUE.test(data),
  predicate: (value: unknown) => typeof value === 'boolean',
});

const MAY_START_INT = /^[-+0-9]/;
const INT11 = /^[-+]?(?:0|[1-9][0-9_]*|0[0-7_]+|0x[0-9a-fA-F_]+|0b[01_]+)$/;
const int11 = new jsyaml.Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && MAY_START_INT.test(data) && INT11.test(data),
  construct: (data: string) => {
    const text = data.replace(/_/g, '');
    const sign = text.startsWith('-') ? -1 : 1;
    const digits = text.replace(/^[-+]/, '');
    if (digits.startsWith('0x')) return sign * parseInt(digits.slice(2), 16);
    if (digits.startsWith('0b')) return sign * parseInt(digits.slice(2), 2);
    if (digits.length > 1 && digits.startsWith('0')) return sign * parseInt(digits, 8);
    return sign * parseInt(digits, 10);
  },
  predicate: (value: unknown) => typeof value === 'number' && Number.isInteger(value),
});

// js-yaml exports its built-in types; @types/js-yaml does not declare them.
const builtin = (jsyaml as unknown as { types: Record<'null' | 'float' | 'merge', jsyaml.Type> }).types;

/** js-yaml's schema for the same rules. */
export const KUBECTL_JSYAML_SCHEMA = jsyaml.FAILSAFE_SCHEMA.extend({
  implicit: [builtin.null, bool11, int11, builtin.float, builtin.merge],
});
