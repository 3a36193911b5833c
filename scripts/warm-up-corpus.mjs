// Writes the webhook's warm-up corpus into dist/src/server/warm-up-corpus.json (run by `npm run
// build` after tsc): the project's valid example of every kind and two typical mistakes of each
// (bench/corpus.ts), as plain JSON. The package ships this file, not the test fixtures it comes from.
import { writeFileSync } from 'node:fs';
import { corpus } from '../dist/bench/corpus.js';
import { WARM_UP_CORPUS_FILE } from '../dist/src/server/warm-up.js';

writeFileSync(new URL(`../dist/src/server/${WARM_UP_CORPUS_FILE}`, import.meta.url), JSON.stringify(corpus()));
