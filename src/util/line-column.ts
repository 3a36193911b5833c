/**
 * 1-based line and column of an offset into a text, a line ending at `\r\n`, `\r` or `\n`: as
 * editors, gopher-lua and js-yaml count them.
 */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const lines = text.slice(0, offset).split(/\r\n|\r|\n/);
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}
