/**
 * The bytes of a manifest as text. A module of its own, with nothing heavy behind it: the CLI's
 * entry point reads standard input through it for every command.
 */
import { readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';

/**
 * A manifest file's text as kubectl reads it: UTF-8, or UTF-16 after its byte order mark
 * (what Windows PowerShell writes). Other bytes are refused rather than quietly replaced.
 */
export function decodeManifest(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return Buffer.from(bytes.subarray(2)).swap16().toString('utf16le');
  if (!isUtf8(bytes)) throw new Error('not UTF-8 (nor UTF-16 with a byte order mark): save the file as UTF-8');
  return bytes.toString('utf8');
}

/** Standard input, decoded as a manifest file is. */
export const readStdin = (): string => decodeManifest(readFileSync(0));
