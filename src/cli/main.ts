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
const commands: { name: string; summary: string; load: () => Promise<Command> }[] = [
  { name: 'validate', summary: 'check manifests offline (YAML or JSON files, directories, stdin)', load: async () => (await import('./commands/validate.js')).validateCommand },
  { name: 'test', summary: 'run policy test suites (fleetgate-test.yaml)', load: async () => (await import('./commands/test.js')).testCommand },
  { name: 'schema', summary: 'write the JSON Schema of every kind, for editors', load: async () => (await import('./commands/schema.js')).schemaCommand },
  { name: 'certs', summary: 'create a CA and a serving certificate for the webhook', load: async () => (await import('./commands/certs.js')).certsCommand },
  { name: 'serve', summary: 'run the HTTPS admission webhook', load: async () => (await import('./commands/serve.js')).serveCommand },
];

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `fleetgate: admission webhook, validation and policy tests for the multi-cluster control plane's resources

Usage:
${commands.map((c) => `  fleetgate ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}
  fleetgate ${'--version'.padEnd(width)}  print the version

Run 'fleetgate <command> --help' for a command's flags and examples.
`;
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(help());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = commands.find((c) => c.name === rest[0]);
    io.stdout(topic ? (await topic.load()).help : help());
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.stderr(`fleetgate: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.help);
    return 0;
  }
  return command.run(rest, io);
}
