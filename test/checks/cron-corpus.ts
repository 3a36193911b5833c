/**
 * Schedules that probe every corner of robfig/cron's standard parser: each field given single
 * values, names, ranges, steps and lists (well- and ill-formed), whitespace of every kind Go or
 * JavaScript calls space, the descriptors and `@every` durations, and seeded random mixes.
 * Deterministic, so a mismatch found once is found on every run.
 */
const VALUES = [
  '0', '1', '2', '5', '6', '7', '12', '13', '23', '24', '31', '32', '59', '60', '00', '007', '+5', '+0', '-0', '-1', '',
  'jan', 'JAN', 'Dec', 'sun', 'SAT', 'Mon', 'thu', 'january', 'monday', 'L', 'W', '5L', '15W', '1#2', 'H', '?', '*',
  'x', '1.5', '0x1', '1e1', '٣', '4294967296', '9223372036854775807', '9223372036854775808', '18446744073709551616',
];
const RANGE_ENDS = ['*', '?', '0', '1', '5', '6', '7', '12', '31', 'jan', 'dec', 'mon', 'sat', '', '+1', 'x'];
const STEP_BASES = ['*', '?', '0', '1', '5', '1-5', 'jan', 'mon', '', '*-5', '5-1'];
const STEPS = ['0', '1', '2', '7', '13', '60', '+2', '-2', '', 'mon', 'jan', '00', '4294967296', '9223372036854775808', '2/3'];
const LIST_ITEMS = ['1', '2', '', '*', '?', '1-3', '*/2', 'jan', 'mon', '7', '60'];

/** The tokens tried in each field. */
export function fieldTokens(): string[] {
  const tokens = new Set<string>(VALUES);
  for (const a of RANGE_ENDS) for (const b of RANGE_ENDS) tokens.add(`${a}-${b}`);
  for (const t of ['1-2-3', '*-*-*', '--', '-']) tokens.add(t);
  for (const base of STEP_BASES) for (const step of STEPS) tokens.add(`${base}/${step}`);
  for (const a of LIST_ITEMS) for (const b of LIST_ITEMS) tokens.add(`${a},${b}`);
  for (const t of [',', ',,', '1,,2', ',1', '1,', '1,2,3', '1-2,5/2,jan']) tokens.add(t);
  return [...tokens];
}

/** Characters Go's unicode.IsSpace or JavaScript's \s treat as space (they differ on U+0085 and U+FEFF), and two neither does. */
const SPACES = [' ', '\t', '\n', '\v', '\f', '\r', '\u0085', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u200b', '\u180e'];

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const DURATIONS = [
  '', ' ', '5m', ' 5m', '5m ', '\t5m', '0', '+0', '-0', '0s', '0.0s', '-5m', '+1h', '1h30m', '1h 30m', '1.5h', '.5h', '1.h', '.h', '5',
  '5M', '1d', '300ms', '1us', '1µs', '1μs', '1ns', '1h1h', '1e3s', 'soon', '9999999999h', '2562047h', '2562048h',
  '9223372036854775807ns', '9223372036854775808ns', '2562047h47m16.854775807s', '2562047h47m16.854775808s',
  '0.000000001s', '0.0000000001s', '1.0000000000000000000001s', '00001s', 'h', '1hm', '-', '+', '1 h', '1h\n',
];

export function scheduleCorpus(): string[] {
  const corpus = new Set<string>();
  const tokens = fieldTokens();
  for (let field = 0; field < 5; field++) {
    for (const token of tokens) {
      const fields = ['*', '*', '*', '*', '*'];
      fields[field] = token;
      corpus.add(fields.join(' '));
    }
  }
  for (const space of SPACES) {
    corpus.add(`0${space}9 * * *`);
    corpus.add(`${space}0 9 * * *`);
    corpus.add(`0 9 * * *${space}`);
    corpus.add(`${space}@daily`);
    corpus.add(`@daily${space}`);
    corpus.add(`@every${space}5m`);
    corpus.add(`@every 5m${space}`);
  }
  for (const descriptor of DESCRIPTORS) {
    for (const variant of [descriptor, descriptor.toUpperCase(), ` ${descriptor}`, `${descriptor} `, `  ${descriptor}\t`, `${descriptor} x`, `${descriptor}x`]) {
      corpus.add(variant);
    }
  }
  for (const d of DURATIONS) corpus.add(`@every ${d}`);
  for (const s of ['', ' ', '@', '@every', '@every5m', '@5minutes', '@everysecond', '* * * *', '* * * * * *', '0 0 0 * * * 2026']) corpus.add(s);

  // Seeded random mixes of the tokens above, with four to six fields.
  let seed = 0x5eed;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 4000; i++) {
    const count = [5, 5, 5, 5, 5, 5, 4, 6][next(8)]!;
    const fields = Array.from({ length: count }, () => tokens[next(tokens.length)]!);
    corpus.add(fields.join(' '));
  }
  return [...corpus];
}
