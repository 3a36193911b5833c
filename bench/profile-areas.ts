/**
 * Where a webhook's CPU profile spends its busy time, by area of the request's path: the share of
 * the profile's non-idle samples whose stack holds a function of each area (inclusive: a sample in
 * JSON.parse under review() counts for both). Profiles of several builds or load shapes print side
 * by side.
 *
 *   node dist/bench/reliability/soak.js --seconds 20 --floor-seconds 0 --cpu-prof-dir /tmp/prof-a
 *   node dist/bench/profile-areas.js [--last-seconds 20] /tmp/prof-a /tmp/prof-b
 *
 * A directory stands for the .cpuprofile in it (the server writes one when it exits). With
 * `--last-seconds`, only the samples of the profile's last seconds count: the recorded load, not the
 * start-up and the warm-up. The shares are of the main thread's sampled time only: V8's helper
 * threads (concurrent compilation and marking) and the kernel's side of the sockets are not in a
 * CPU profile, so the busy time is less than the process's CPU time.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** An area: its name, and the frames that are in it (function name, then the script's path within node_modules or dist). */
export interface Area {
  name: string;
  frame: RegExp;
}

/** The webhook's request path, area by area, nested areas indented under the one that calls them. */
export const WEBHOOK_AREAS: readonly Area[] = [
  { name: 'JSON.parse of the body (decodeJson)', frame: /^decodeJson src\/server\// },
  { name: 'review(): decode, judge or default, response', frame: /^review src\/admission\// },
  { name: '  the schema pass', frame: /^schemaPass src\/engine\// },
  { name: "  the kind's rules", frame: /^runRules src\/engine\// },
  { name: '  the stored object: holdsNull, sameJson', frame: /^(holdsNull|sameJson) src\// },
  { name: '  the mutating path (mutationOf)', frame: /^mutationOf src\/engine\// },
  { name: 'the answer: JSON.stringify, Koa body and headers', frame: /^answerJson src\/server\// },
  { name: 'the denial log line: pino and its write', frame: /^record src\/server\// },
  { name: 'the body read (readBody)', frame: /^readBody src\/server\// },
  { name: "Koa's respond: res.end, the TLS write", frame: /^respond koa\// },
  { name: '  native writev (TLS encryption, the system call)', frame: /^writev $/ },
  { name: "Koa's handleRequest: context, compose, on-finished", frame: /^handleRequest koa\/lib\/application\.js:/ },
  { name: 'the /metrics scrape (prom-client)', frame: /^metrics prom-client\// },
  { name: 'garbage collection (main thread)', frame: /^\(garbage collector\) / },
  { name: 'native code outside JS frames (program)', frame: /^\(program\) / },
];

/** A frame as areas match it: `functionName path:line`, the path from node_modules/ or dist/ on. */
const frameKey = (frame: CallFrame): string => `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*\/(node_modules|dist)\//, '')}${frame.url ? `:${frame.lineNumber}` : ''}`;

export interface AreaShares {
  /** Milliseconds of non-idle samples counted. */
  busyMs: number;
  /** Per area, in the order given: the share (0 to 1) of busy time whose stack holds one of its frames. */
  shares: number[];
}

/** The areas' shares of `profile`'s busy time, over its last `lastSeconds` (all of it when undefined). */
export function areaShares(profile: CpuProfile, areas: readonly Area[], lastSeconds?: number): AreaShares {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Which areas each node's stack (the node and its callers) is in, worked out once per node.
  const inAreas = new Map<number, boolean[]>();
  const areasOf = (id: number): boolean[] => {
    let known = inAreas.get(id);
    if (known) return known;
    const node = byId.get(id)!;
    const parent = parentOf.get(id);
    const key = frameKey(node.callFrame);
    const above = parent === undefined ? areas.map(() => false) : areasOf(parent);
    known = areas.map((area, i) => above[i]! || area.frame.test(key));
    inAreas.set(id, known);
    return known;
  };
  // A sample's time runs to the next sample (the last one's is unknown, so it counts for nothing).
  const stamps: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) stamps.push((t += delta));
  const from = lastSeconds === undefined ? -Infinity : stamps[stamps.length - 1]! - lastSeconds * 1e6;
  const sums = areas.map(() => 0);
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    if (stamps[i]! < from) continue;
    const id = profile.samples[i]!;
    if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
    const ms = (stamps[i + 1] === undefined ? 0 : stamps[i + 1]! - stamps[i]!) / 1000;
    busy += ms;
    areasOf(id).forEach((hit, a) => {
      if (hit) sums[a]! += ms;
    });
  }
  return { busyMs: busy, shares: sums.map((sum) => (busy > 0 ? sum / busy : 0)) };
}

/** The profile a path names: the file, or the (first) .cpuprofile in a directory. */
export function readProfile(path: string): CpuProfile {
  const file = statSync(path).isDirectory() ? readdirSync(path).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(path, f))[0] : path;
  if (!file) throw new Error(`no .cpuprofile in ${path}`);
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

/** The shares of several profiles as one Markdown table, a column each. */
export function sharesTable(names: readonly string[], results: readonly AreaShares[], areas: readonly Area[]): string {
  const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
  return [
    `| area (inclusive share of the busy time) | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    ...areas.map((area, i) => `| ${area.name.replace(/^ +/, (indent) => '&nbsp;'.repeat(indent.length))} | ${results.map((r) => percent(r.shares[i]!)).join(' | ')} |`),
    `| busy ms counted | ${results.map((r) => r.busyMs.toFixed(0)).join(' | ')} |`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ options: { 'last-seconds': { type: 'string' } }, allowPositionals: true });
  if (positionals.length === 0) {
    console.error('usage: node dist/bench/profile-areas.js [--last-seconds N] PROFILE_OR_DIR...   (see the comment at the top of bench/profile-areas.ts)');
    process.exit(2);
  }
  const lastSeconds = values['last-seconds'] === undefined ? undefined : Number(values['last-seconds']);
  console.log(sharesTable(positionals, positionals.map((path) => areaShares(readProfile(path), WEBHOOK_AREAS, lastSeconds)), WEBHOOK_AREAS));
}
