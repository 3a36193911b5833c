/**
 * The `fleetgate` command. main() returns the exit code; only bin.ts touches process.
 */
import { readFileSync } from 'node:fs';
import type { CliIO, Command } from './io.js';
import { serveCommand } from './commands/serve.js';
import { validateCommand } from './commands/validate.js';
import { testCommand } from './commands/test.js';
import { schemaCommand } from './commands/schema.js';
import { certsCommand } from './commands/certs.js';

export type { CliIO } from './io.js';

const commands: Command[] = [validateCommand, testCommand, schemaCommand, certsCommand, serveCommand];

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
    io.stdout(topic ? topic.help : help());
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr(`fleetgate: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.help);
    return 0;
  }
  return command.run(rest, io);
}
