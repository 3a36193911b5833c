/** What a command may touch: its output streams, standard input, and nothing else of the process. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { dns1123Subdomain } from '../checks/names.js';

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads all of standard input (for `-`). */
  stdin?: () => string;
  /** Whether stderr is a terminal (progress is shown only then). */
  stderrIsTTY?: boolean;
  /** The clock progress is timed by, in milliseconds; Date.now unless a test drives it. */
  now?: () => number;
  /** Called with the running server (`serve`, `apiserver`) so the caller can wire signals. */
  onServe?: (server: RunningService) => void;
}

/** A server a command started: stopping it drains what is in flight. */
export interface RunningService {
  close(signal?: string): Promise<void>;
}

export interface Command {
  name: string;
  summary: string;
  help: string;
  /** Returns the exit code. */
  run(args: string[], io: CliIO): Promise<number>;
}

/**
 * Parses a command's flags. A usage error is printed with a pointer to the command's help,
 * and undefined comes back: the caller exits 2.
 */
export function parseFlags<const T extends ParseArgsConfig>(command: string, io: CliIO, config: T): ReturnType<typeof parseArgs<T>> | undefined {
  try {
    return parseArgs(config);
  } catch (err) {
    usageError(command, io, usageMessage(err as Error & { code?: string }));
    return undefined;
  }
}

/** Node's words, but for an unknown option, whose message Node leaves with a quote unclosed. */
function usageMessage(err: Error & { code?: string }): string {
  const option = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '([^']*)'/.exec(err.message)?.[1] : undefined;
  return option === undefined ? err.message : `unknown option '${option}' (a file whose name starts with '-' goes after '--': -- ${option})`;
}

/** Prints a usage error with a pointer to the command's help; returns the exit code for it, 2. */
export function usageError(command: string, io: CliIO, message: string): 2 {
  io.stderr(`fleetgate ${command}: ${message}\nRun 'fleetgate ${command} --help' for usage.\n`);
  return 2;
}

/** Why a --group-domain value cannot be one, or undefined: the groups are `<group>.<domain>`, so it must be a DNS subdomain. */
export function groupDomainProblem(domain: string): string | undefined {
  const problem = dns1123Subdomain(domain);
  return problem ? `--group-domain "${domain}": ${problem}` : undefined;
}
