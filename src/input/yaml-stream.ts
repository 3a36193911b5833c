/**
 * A YAML stream cut into its documents without parsing it, each with the line it starts on in
 * the file, and where a document's content and a syntax error in it are.
 */
import { lineAndColumn } from '../util/line-column.js';

/** One document of a stream: its text and the line its first line has in the file. */
export interface Chunk {
  text: string;
  firstLine: number;
}

/** A `---` marker at the start of a line (other than the first), followed by a space, a tab or the line's end. */
const MARKER = /\n---(?=[ \t\n]|\r\n|\r?$)/g;

/** How many `\n` are in `text`. */
function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * Splits a stream at its `---` markers. A marker only ever starts a line at column 0
 * (block content is indented), so this needs no YAML parse. The marker line stays with
 * its document, which may carry content after it; the line break before it does not.
 */
export function chunks(text: string): Chunk[] {
  const result: Chunk[] = [];
  let start = 0;
  let firstLine = 1;
  for (const marker of text.matchAll(MARKER)) {
    const chunk = text.slice(start, marker.index);
    result.push({ text: chunk, firstLine });
    firstLine += countNewlines(chunk) + 1;
    start = marker.index + 1;
  }
  result.push({ text: text.slice(start), firstLine });
  return withDirectivesJoined(result).map(withoutByteOrderMark).map(withoutLeadingDocumentEnds);
}

/**
 * Directives (`%YAML 1.1`) belong to the document whose `---` follows them: the directive
 * lines that end a chunk (the first of a stream, or after a `...`) move to the next one.
 */
function withDirectivesJoined(split: Chunk[]): Chunk[] {
  const joined: Chunk[] = [];
  for (let i = 0; i < split.length; i++) {
    const chunk = split[i]!;
    const next = split[i + 1];
    // Directives are rare: only a chunk with a line starting with % is looked at line by line.
    if (!next || !(chunk.text.startsWith('%') || chunk.text.includes('\n%'))) {
      joined.push(chunk);
      continue;
    }
    const lines = chunk.text.split('\n');
    let tail = lines.length;
    while (tail > 0 && (DIRECTIVE.test(lines[tail - 1]!) || BLANK_OR_COMMENT.test(lines[tail - 1]!))) tail--;
    if (lines.slice(tail).some((l) => DIRECTIVE.test(l))) {
      split[i + 1] = { text: `${lines.slice(tail).join('\n')}\n${next.text}`, firstLine: chunk.firstLine + tail };
      if (tail > 0) joined.push({ text: lines.slice(0, tail).join('\n'), firstLine: chunk.firstLine });
      continue;
    }
    joined.push(chunk);
  }
  return joined;
}

/** YAML allows a byte order mark at the start of any document (files saved on Windows, then concatenated). */
function withoutByteOrderMark(chunk: Chunk): Chunk {
  const bom = /^(---[^\n]*\n)?\uFEFF/.exec(chunk.text);
  return bom ? { ...chunk, text: `${bom[1] ?? ''}${chunk.text.slice(bom[0].length)}` } : chunk;
}

/** Blank and comment lines, and at least one `...` among them, at the start of a part that no `---` opens. */
const LEADING_DOCUMENT_ENDS = /^(?:[ \t]*(?:#[^\n]*)?\r?\n|\.\.\.(?:[ \t]+#[^\n]*)?[ \t]*\r?\n)*\.\.\.(?:[ \t]+#[^\n]*)?[ \t]*(?:\r?\n|$)/;

/**
 * A `...` before any document ends nothing: go-yaml skips it, so kubectl reads the document
 * after it, where js-yaml would count an empty document first and refuse the part as two.
 * Each such marker becomes blank, so lines keep their numbers.
 */
function withoutLeadingDocumentEnds(chunk: Chunk): Chunk {
  const lead = LEADING_DOCUMENT_ENDS.exec(chunk.text);
  if (!lead) return chunk;
  const blanked = lead[0].replace(/^\.\.\.(?=[ \t#\r\n]|$)/gm, '   ');
  return { ...chunk, text: blanked + chunk.text.slice(lead[0].length) };
}

/** Lines without content: blank, a comment, a marker (with a comment at most) or a directive. */
const BLANK_OR_COMMENT = /^\s*(?:#.*)?\r?$/;
const MARKER_LINE = /^(?:---|\.\.\.)(?:\s+#.*)?\s*$/;
const DIRECTIVE = /^%/;

/** The first line of a document that carries content (not a marker, comment or blank). */
export function contentLine(chunk: Chunk): number {
  const { text } = chunk;
  for (let start = 0, line = chunk.firstLine; ; line++) {
    const end = text.indexOf('\n', start);
    const content = text.slice(start, end === -1 ? text.length : end);
    if (!BLANK_OR_COMMENT.test(content) && !MARKER_LINE.test(content) && !DIRECTIVE.test(content)) return line;
    if (end === -1) return chunk.firstLine;
    start = end + 1;
  }
}


/** Where js-yaml says its error is: line and column from 0, and the offset into the text. */
export interface YamlMark {
  line: number;
  column: number;
  position?: number;
}

/**
 * A mark's line and column in `text`. js-yaml sets them for every error but one: a NUL byte,
 * which it places by offset alone, on line 0 at a column past that line's end.
 */
export function markIn(text: string, mark: YamlMark): { line: number; column: number } {
  const firstLineEnd = text.indexOf('\n');
  if (mark.line !== 0 || mark.position === undefined || mark.column <= (firstLineEnd < 0 ? text.length : firstLineEnd)) return mark;
  const at = lineAndColumn(text, mark.position);
  return { line: at.line - 1, column: at.column - 1 };
}
