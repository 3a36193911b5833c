// Precompiles the kind schemas into dist/src/validators.generated.js (run by `npm run build`
// after tsc): a start-up then pays neither for loading ajv's compiler nor for compiling.
import { writeFileSync } from 'node:fs';
import { standaloneModule } from '../dist/src/schema-compiler.js';
import { ruleModules } from '../dist/rules/index.js';

const target = new URL('../dist/src/validators.generated.js', import.meta.url);
writeFileSync(target, standaloneModule(Object.fromEntries(ruleModules.map((r) => [r.kind, r.schema]))));
