/** `fleetgate certs`: PLACEHOLDER, replaced by the real command. */
import type { CliIO, Command } from '../io.js';

async function run(_args: string[], io: CliIO): Promise<number> {
  io.stderr('fleetgate certs: not implemented yet\n');
  return 2;
}

export const certsCommand: Command = { name: 'certs', summary: 'certs (not implemented yet)', help: 'Usage: fleetgate certs\n', run };
