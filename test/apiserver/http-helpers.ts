/** Drives the API server's Koa app in process (light-my-request: no socket), with the in-memory store. */
import inject, { type Response } from 'light-my-request';
import { createApiServerApp, type ApiServerAppOptions } from '../../src/apiserver/app.js';
import { createMemoryStorage } from '../../src/apiserver/storage/index.js';

export interface Api {
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  get(url: string, headers?: Record<string, string>): Promise<Reply>;
  post(url: string, body: unknown, headers?: Record<string, string>): Promise<Reply>;
  put(url: string, body: unknown, headers?: Record<string, string>): Promise<Reply>;
  patch(url: string, body: unknown, contentType: string): Promise<Reply>;
  delete(url: string, body?: unknown): Promise<Reply>;
  close(): Promise<void>;
  app: ReturnType<typeof createApiServerApp>;
}

export interface Reply {
  status: number;
  body: any;
  text: string;
  warnings: string[];
  headers: Response['headers'];
}

export function startApi(options: Partial<ApiServerAppOptions> = {}): Api {
  const storage = options.storage ?? createMemoryStorage();
  const app = createApiServerApp({ storage, ...options });
  const handler = app.app.callback();
  const request = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await inject(handler, {
      method: method as 'GET',
      url,
      headers: { ...(payload !== undefined && !headers['content-type'] ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(payload !== undefined ? { payload } : {}),
    });
    let parsed: unknown;
    try {
      parsed = res.payload ? JSON.parse(res.payload) : undefined;
    } catch {
      parsed = undefined;
    }
    const warning = res.headers.warning;
    const warnings = (warning === undefined ? [] : Array.isArray(warning) ? warning : [warning]).map((w) => /^299 - "(.*)"$/s.exec(String(w))![1]!.replace(/\\(["\\])/g, '$1'));
    return { status: res.statusCode, body: parsed, text: res.payload, warnings, headers: res.headers };
  };
  return {
    app,
    request,
    get: (url, headers) => request('GET', url, undefined, headers),
    post: (url, body, headers) => request('POST', url, body, headers),
    put: (url, body, headers) => request('PUT', url, body, headers),
    patch: (url, body, contentType) => request('PATCH', url, body, { 'content-type': contentType }),
    delete: (url, body) => request('DELETE', url, body),
    close: async () => {
      app.endWatches();
      await storage.close();
    },
  };
}
