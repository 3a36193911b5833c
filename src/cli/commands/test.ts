/** `fleetgate test`: PLACEHOLDER, replaced by the real command. */
import type { CliIO, Command } from '../io.js';

async function run(_args: string[], io: CliIO): Promise<number> {
  io.stderr('fleetgate test: not implemented yet\n');
  return 2;
}

export const testCommand: Command = { name: 'test', summary: 'test (not implemented yet)', help: 'Usage: fleetgate test\n', run };
