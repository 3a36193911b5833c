/**
 * Who may call the API. On a loopback address with no credentials configured, anyone on this
 * machine (the default, as for a development server). Otherwise a request must carry a bearer
 * token from `--token-auth-file` or a client certificate signed by `--client-ca-file`; one that does
 * not is answered 401. Tokens are compared by their SHA-256, and never logged.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { parse } from 'csv-parse/sync';

export interface TokenUser {
  name: string;
  uid: string;
  groups: string[];
}

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * kube-apiserver's static token file: CSV lines `token,user,uid[,"group1,group2"]`. The error names
 * the file and the line, never a token.
 */
export function readTokenFile(file: string): Map<string, TokenUser> {
  const records = parse(readFileSync(file, 'utf8'), { relax_column_count: true, skip_empty_lines: true, trim: true }) as string[][];
  const users = new Map<string, TokenUser>();
  records.forEach((record, i) => {
    const [token, name, uid, groups] = record;
    if (record.length < 3 || !token || !name) throw new Error(`--token-auth-file ${file}: line ${i + 1}: want at least 3 columns: token,user,uid[,groups]`);
    users.set(digest(token), { name, uid: uid ?? '', groups: groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : [] });
  });
  if (users.size === 0) throw new Error(`--token-auth-file ${file} holds no token`);
  return users;
}

export interface Authenticator {
  (req: IncomingMessage): boolean;
}

/** Authenticates by bearer token (`tokens`) and/or verified client certificate (`clientCertificates`). */
export function authenticator(tokens: Map<string, TokenUser> | undefined, clientCertificates: boolean): Authenticator {
  return (req) => {
    if (clientCertificates && (req.socket as TLSSocket).authorized === true) return true;
    const header = req.headers.authorization;
    if (tokens && typeof header === 'string') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (match && tokens.has(digest(match[1]!))) return true;
    }
    return false;
  };
}

/** Whether a bind address only this machine can reach. */
export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address) || address === '::ffff:127.0.0.1';
}
