/** Decoding request bodies: duplicate keys reported as kube-apiserver's strict decoder words them. */
import { describe, expect, it } from 'vitest';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJson, readBody } from '../../src/apiserver/body.js';

const dups = (text: string) => decodeJson(text, 'x', true).duplicates;

describe('decodeJson', () => {
  it('finds no duplicate where there is none, whatever colons and quotes the strings hold', () => {
    expect(dups('{"a":"https://x:1/\\":b","b":{"c":[{"d":"08:00:00Z"},{"d":1}]},"e\\"f:":2}')).toEqual([]);
    expect(dups('[{"a":1},{"a":2}]')).toEqual([]);
  });

  it('names each repeated key once, at any depth, in arrays too', () => {
    expect(dups('{"a":1,"a":2,"a":3}')).toEqual(['duplicate field "a"']);
    expect(dups('{"spec":{"x":{"y":1,"y":2}},"list":[{"k":1,"k":2}]}')).toEqual(['duplicate field "y"', 'duplicate field "k"']);
    expect(dups(String.raw`{"a\"b":1,"a\"b":2}`)).toEqual([String.raw`duplicate field "a\"b"`]);
  });

  it('does not look unless asked (fieldValidation=Ignore)', () => {
    expect(decodeJson('{"a":1,"a":2}', 'x', false)).toEqual({ value: { a: 2 }, duplicates: [] });
  });

  it('a body that is not JSON is a 400 naming what could not be decoded', () => {
    expect(() => decodeJson('{"a":', 'Cluster in version "v1alpha1" cannot be handled as a Cluster', true)).toThrow(/^Cluster in version "v1alpha1" cannot be handled as a Cluster: /);
  });

  it('a body nested deeper than kube’s 10,000 levels is a 400, not a stack overflow further on', () => {
    const nested = (depth: number) => `{"spec":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(decodeJson(nested(10_000), 'x', true).duplicates).toEqual([]);
    expect(() => decodeJson(nested(10_001), 'x', true)).toThrow('x: exceeded max depth of 10000');
    // Brackets inside strings do not count.
    expect(decodeJson(`{"a":"${'['.repeat(20_000)}"}`, 'x', true).value).toEqual({ a: '['.repeat(20_000) });
  });
});

describe('readBody', () => {
  /** What readBody makes of a request sent by `send`, read with a limit of 16 bytes: the text, or the Status code it throws. */
  async function read(send: (req: ReturnType<typeof request>) => void): Promise<string | number> {
    let outcome!: Promise<string | number>;
    const server = createServer((req, res) => {
      outcome = readBody(req, 16).then(
        (text) => text,
        (err: { code?: number }) => err.code ?? -1,
      );
      void outcome.then(() => res.end());
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      const { port } = server.address() as AddressInfo;
      const req = request({ port, method: 'POST', headers: { 'content-type': 'application/json' } });
      req.on('error', () => undefined);
      await new Promise<void>((settled) => {
        req.on('close', settled);
        send(req);
      });
      return await outcome;
    } finally {
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    }
  }

  it('reads a body whole, UTF-8 split across chunks included', async () => {
    const text = '{"a":"é€"}';
    const bytes = Buffer.from(text);
    expect(await read((req) => {
      req.write(bytes.subarray(0, 7));
      req.end(bytes.subarray(7));
    })).toBe(text);
  });

  it('answers 413 for a body past the limit, declared or not', async () => {
    expect(await read((req) => req.end('x'.repeat(17)))).toBe(413);
    expect(await read((req) => {
      req.write('x'.repeat(10));
      req.end('x'.repeat(10));
    })).toBe(413);
  });

  it('answers 400 for a body cut short of its declared length', async () => {
    expect(await read((req) => {
      req.setHeader('content-length', '10');
      req.write('{"a"');
      setTimeout(() => req.destroy(), 50);
    })).toBe(400);
  });
});
