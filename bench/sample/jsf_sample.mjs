// Peer for bench/sample: json-schema-faker generates N instances of a schema,
// one compact JSON document per line (what `weld sample -n N` prints).
// Usage: node jsf_sample.mjs SCHEMA.json N
import { readFileSync } from 'node:fs';
import { JSONSchemaFaker } from 'json-schema-faker';

const [schemaPath, countText] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const count = Number(countText ?? 1);
JSONSchemaFaker.option({ random: mulberry32(0), alwaysFakeOptionals: false, failOnInvalidTypes: false });
const lines = [];
for (let i = 0; i < count; i++) lines.push(JSON.stringify(JSONSchemaFaker.generate(schema)));
process.stdout.write(lines.join('\n') + '\n');

// Seeded PRNG so both sides are deterministic.
function mulberry32(seed) {
  return function () {
    let t = (seed += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
