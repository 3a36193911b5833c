/**
 * validate() of freshly decoded objects, as a webhook gets them, next to validate() of the
 * same objects reused, in one process. A fresh object's strings have not been hashed yet and
 * its memory must be reclaimed; the library bench, which reuses its corpus, does not see that.
 * JSON.parse alone is timed in alternating rounds and subtracted from JSON.parse + validate().
 *
 *   npm run bench:fresh
 */
import { validate } from '../src/decode/object.js';
import { corpus } from './corpus.js';
import { cpuMicrosOver, warmUp } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const PASSES_PER_ROUND = Number(process.env.BENCH_PASSES ?? 100);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 8);

const texts = corpus().map((o) => JSON.stringify(o));
const reused = texts.map((t) => JSON.parse(t) as unknown);

const parseAlone = () => cpuMicrosOver(texts, PASSES_PER_ROUND, (text) => JSON.parse(text));
const parseAndValidate = () => cpuMicrosOver(texts, PASSES_PER_ROUND, (text) => validate(JSON.parse(text)));
const validateReused = () => cpuMicrosOver(reused, PASSES_PER_ROUND, validate);

warmUp(WARMUP_SECONDS, () => {
  parseAlone();
  parseAndValidate();
  validateReused();
});

let parse = 0;
let parseValidate = 0;
let again = 0;
for (let r = 0; r < ROUNDS; r++) {
  parse += parseAlone();
  parseValidate += parseAndValidate();
  again += validateReused();
}
const objects = ROUNDS * PASSES_PER_ROUND * texts.length;
const rate = (micros: number) => Math.round(objects / (micros / 1e6)).toLocaleString('en-US');
console.log(`corpus: ${texts.length} objects; ${ROUNDS} rounds of ${PASSES_PER_ROUND} passes each way, alternating (objects per CPU-second)`);
console.log(`JSON.parse alone             : ${rate(parse)}`);
console.log(`JSON.parse + validate()      : ${rate(parseValidate)}`);
console.log(`validate() of fresh copies   : ${rate(parseValidate - parse)}   (the two above subtracted)`);
console.log(`validate() of reused objects : ${rate(again)}`);
