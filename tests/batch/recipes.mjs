// The docs/batch.md recipes the engine tests run: the code block right after
// a `<!-- recipe: NAME -->` marker, so the page and the tests cannot drift.

import fs from 'node:fs';
import path from 'node:path';
import { SOURCE_DIR } from '../e2e_run/lib.mjs';

export function recipe(name) {
  const page = fs.readFileSync(path.join(SOURCE_DIR, 'docs/batch.md'), 'utf8');
  const marker = `<!-- recipe: ${name} -->\n`;
  const at = page.indexOf(marker);
  if (at < 0) throw new Error(`docs/batch.md has no recipe "${name}"`);
  const block = /^```[a-z]*\n([\s\S]*?)^```$/m.exec(page.slice(at + marker.length));
  if (!block) throw new Error(`docs/batch.md: no code block after the "${name}" marker`);
  return block[1];
}
