/** Runs the `fleetgate` entry point in-process with captured output, as the CLI tests need it. */
import { main, type CliIO } from '../../src/cli/main.js';

export async function runCli(argv: string[], io: Partial<CliIO> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stderrIsTTY: false, ...io });
  return { code, stdout, stderr };
}
