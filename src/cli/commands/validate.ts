/** `fleetgate validate`: PLACEHOLDER, replaced by the real command. */
import type { CliIO, Command } from '../io.js';

async function run(_args: string[], io: CliIO): Promise<number> {
  io.stderr('fleetgate validate: not implemented yet\n');
  return 2;
}

export const validateCommand: Command = { name: 'validate', summary: 'validate (not implemented yet)', help: 'Usage: fleetgate validate\n', run };
