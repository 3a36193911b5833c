// Precompiles the kind schemas into dist/src/validators.generated.cjs (run by `npm run build`
// after tsc): a start-up then pays neither for loading ajv's compiler nor for compiling.
import { rmSync, writeFileSync } from 'node:fs';
import { GENERATED_VALIDATORS, standaloneModule } from '../dist/src/schema/compiler.js';
import { ruleModules } from '../dist/rules/index.js';
import { SUITE } from '../dist/src/cli/suite/schema.js';

// The ES module form earlier builds wrote; a leftover would only mislead.
rmSync(new URL('../dist/src/validators.generated.js', import.meta.url), { force: true });
const target = new URL(`../dist/src/${GENERATED_VALIDATORS}`, import.meta.url);
// The policy test suites' schema too (fleetgate test), so checking a suite loads no compiler either.
writeFileSync(target, standaloneModule(Object.fromEntries([...ruleModules, SUITE].map((r) => [r.kind, r.schema]))));
