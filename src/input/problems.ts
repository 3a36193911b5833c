/** What goes wrong reading input files: a problem at a place (file, line, column), and how it is printed. */
export interface ReadProblem {
  file: string;
  line?: number;
  column?: number;
  message: string;
}

/**
 * A failure to read a file as a problem's message: the condition, without Node's syscall and
 * path (the problem names the file already). Other errors keep their own message.
 */
export function ioMessage(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  if (code === 'EISDIR') return 'is a directory';
  return (err as Error).message;
}

/** `file:line:column` of a problem, as much of it as is known. */
export const problemPosition = (p: ReadProblem): string => `${p.file}${p.line ? `:${p.line}${p.column ? `:${p.column}` : ''}` : ''}`;

/** `file:line:column: message`, the way a problem is printed on its own. */
export const formatProblem = (p: ReadProblem): string => `${problemPosition(p)}: ${p.message}`;
