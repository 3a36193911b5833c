/** What a command may touch: its output streams, standard input, and nothing else of the process. */
import type { RunningServer } from '../server/serve.js';

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads all of standard input (for `-`). */
  stdin?: () => string;
  /** Whether stderr is a terminal (progress is shown only then). */
  stderrIsTTY?: boolean;
  /** Called with the running server so the caller can wire signals. */
  onServe?: (server: RunningServer) => void;
}

export interface Command {
  name: string;
  summary: string;
  help: string;
  /** Returns the exit code. */
  run(args: string[], io: CliIO): Promise<number>;
}
