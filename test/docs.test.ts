import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pages = ['README.md', 'CHANGELOG.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)];
const text = (page: string) => readFileSync(join(root, page), 'utf8');

describe('the manual', () => {
  it("keeps the README's first screen: two set-up commands, one that serves with no flags, one that tests", () => {
    const first = /```sh\n([\s\S]*?)```/.exec(text('README.md'))![1]!.trim().split('\n');
    expect(first.map((line) => line.split('#')[0]!.trim())).toEqual(['npm ci && npm start', 'npm ci && npm test']);
    expect(JSON.parse(text('package.json')).scripts.start).toBe('node dist/src/cli/bin.js serve');
  });

  it.each(pages)('%s links only to files that exist', (page) => {
    const missing = [...text(page).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z]+:/.test(target) && !existsSync(join(root, dirname(page), target)));
    expect(missing).toEqual([]);
  });

  it.each(pages)('%s names only deploy/ files that exist', (page) => {
    const named = [...text(page).matchAll(/deploy\/[\w.-]+\.yaml/g)].map((m) => m[0]);
    expect(named.filter((file) => !existsSync(join(root, file)))).toEqual([]);
  });
});
