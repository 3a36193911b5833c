/** `fleetgate schema`: PLACEHOLDER, replaced by the real command. */
import type { CliIO, Command } from '../io.js';

async function run(_args: string[], io: CliIO): Promise<number> {
  io.stderr('fleetgate schema: not implemented yet\n');
  return 2;
}

export const schemaCommand: Command = { name: 'schema', summary: 'schema (not implemented yet)', help: 'Usage: fleetgate schema\n', run };
