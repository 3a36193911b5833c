/**
 * The `fleetgate` command. main() returns the exit code; only bin.ts touches process.
 */
import { readFileSync } from 'node:fs';
import type { CliIO, Command } from './io.js';

export type { CliIO } from './io.js';

/**
 * Commands load on demand: `validate` in a CI job should not pay for Koa, pino and
 * prom-client, nor `serve` for the YAML reader.
 */
const commands: { name: string; load: () => Promise<Command> }[] = [
  { name: 'validate', load: async () => (await import('./commands/validate.js')).validateCommand },
  { name: 'test', load: async () => (await import('./commands/test.js')).testCommand },
  { name: 'schema', load: async () => (await import('./commands/schema.js')).schemaCommand },
  { name: 'certs', load: async () => (await import('./commands/certs.js')).certsCommand },
  { name: 'serve', load: async () => (await import('./commands/serve.js')).serveCommand },
  { name: 'apiserver', load: async () => (await import('./commands/apiserver.js')).apiserverCommand },
];

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** The overview; it loads every command for its summary, which only help needs. */
async function help(): Promise<string> {
  const loaded = await Promise.all(commands.map((c) => c.load()));
  const width = Math.max(...loaded.map((c) => c.name.length), '--version'.length);
  return `fleetgate: admission webhook, validation and policy tests for the multi-cluster control plane's resources

Usage:
${loaded.map((c) => `  fleetgate ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}
  fleetgate ${'--version'.padEnd(width)}  print the version

Run 'fleetgate <command> --help' for a command's flags and examples.
`;
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(await help());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = commands.find((c) => c.name === rest[0]);
    io.stdout(topic ? (await topic.load()).help : await help());
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.stderr(`fleetgate: unknown command "${name}"\n\n${await help()}`);
    return 2;
  }
  const command = await entry.load();
  // After `--` come file names, and a file may be called -h.
  const end = rest.indexOf('--');
  const options = end < 0 ? rest : rest.slice(0, end);
  if (options.includes('--help') || options.includes('-h')) {
    io.stdout(command.help);
    return 0;
  }
  return command.run(rest, io);
}
