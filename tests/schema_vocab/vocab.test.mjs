// Strict mode knows the vocabularies LLM schemas carry (docs/run.md, "Strict
// schemas"): real schemas from pydantic 1 (Debian's python3-pydantic, run
// here), pydantic 2 (pydantic2_pet.json, recorded from pydantic 2.13:
// discriminated union, Optional, constrained str, Decimal, SecretStr…),
// zod-to-json-schema and the OpenAI and Anthropic SDKs' zod helpers (npm,
// tests/node) compile with the strict rules on, through `weld schema check`
// and as a run's --json-schema; an unknown keyword is still refused, with the
// closest known one suggested; --no-strict turns the rules off for the run
// and the batch.
// WELD_BIN, WELD_SOURCE_DIR: set by CTest.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const WELD = process.env.WELD_BIN;
const SOURCE = process.env.WELD_SOURCE_DIR;
const HERE = path.join(SOURCE, 'tests/schema_vocab');
const requireNode = createRequire(path.join(SOURCE, 'tests/node/package.json'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weld-vocab-'));

function weld(args, input) {
  return spawnSync(WELD, args, { encoding: 'utf8', input, timeout: 60000,
    env: { PATH: process.env.PATH, HOME: dir, ASAN_OPTIONS: process.env.ASAN_OPTIONS || '' } });
}

// Compiles `schema` strictly both ways a user meets it: `weld schema check`
// and a run's --json-schema (offline model: nothing leaves the machine).
function assertCompilesStrictly(name, schema, { run: asRun = true } = {}) {
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(schema));
  const check = weld(['schema', 'check', file]);
  assert.equal(check.status, 0, `${name}: ${check.stdout}${check.stderr}`);
  assert.match(check.stdout, /^ok\n$/);
  if (!asRun) return undefined;
  const run = weld(['--provider', 'offline', '-p', 'x', '--json-schema', `@${file}`]);
  assert.equal(run.status, 0, `${name}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

test('pydantic 1 (Debian python3-pydantic): discriminator, example, tuples and definitions compile strictly', (t) => {
  // Debian's interpreter: another python3 on PATH may carry pydantic 2.
  const script = `
import json, enum, datetime, uuid, decimal, ipaddress
from typing import Literal, Union, Optional, List, Dict, Tuple
import pydantic
from pydantic import BaseModel, Field, constr, confloat
assert pydantic.VERSION.startswith('1.'), pydantic.VERSION
class Color(str, enum.Enum):
    red = 'red'
    blue = 'blue'
class Cat(BaseModel):
    kind: Literal['cat']
    meows: int = Field(..., ge=0, le=100, description='how many')
class Dog(BaseModel):
    kind: Literal['dog']
    barks: float = Field(1.5, gt=0, multiple_of=0.5)
class Pet(BaseModel):
    pet: Union[Cat, Dog] = Field(..., discriminator='kind')
    name: constr(min_length=1, max_length=20, regex=r'^[a-z]+$') = Field(..., example='rex', alias='petName')
    color: Optional[Color] = None
    tags: List[str] = Field(default_factory=list, unique_items=True, max_items=5)
    meta: Dict[str, int] = {}
    born: datetime.date
    id: uuid.UUID
    secret: pydantic.SecretStr
    weight: confloat(ge=0) = Field(None, deprecated=True)
    pair: Tuple[int, str] = (1, 'a')
    dec: decimal.Decimal = decimal.Decimal(1)
    ip: ipaddress.IPv4Address = None
    blob: bytes = b''
    url: pydantic.HttpUrl = None
    class Config:
        schema_extra = {'examples': [{'petName': 'rex'}]}
class Team(BaseModel):
    name: str
    members: List[Pet] = Field(..., min_items=1)
print(json.dumps({'pet': Pet.schema(), 'team': Team.schema()}))
`;
  const python = spawnSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' });
  if (python.status !== 0 && /No module named 'pydantic'|ModuleNotFoundError|ENOENT/.test(python.stderr + python.error)) {
    t.skip('Debian python3-pydantic is not installed (scripts/install-deps.sh installs it)');
    return;
  }
  assert.equal(python.status, 0, python.stderr);
  const schemas = JSON.parse(python.stdout);
  assert.ok(JSON.stringify(schemas.pet).includes('"discriminator"'));
  assert.ok(JSON.stringify(schemas.pet).includes('"example"'));
  const pet = assertCompilesStrictly('pydantic1-pet', schemas.pet);
  assert.ok(['cat', 'dog'].includes(pet.pet.kind));
  assertCompilesStrictly('pydantic1-team', schemas.team);
  // Its answers validate: a hand-written one, and one with the wrong tag.
  const file = path.join(dir, 'pydantic1-pet.json');
  const good = { pet: { kind: 'cat', meows: 3 }, petName: 'rex', born: '2020-01-01',
    id: '123e4567-e89b-12d3-a456-426614174000', secret: 's', pair: [1, 'a'] };
  const bad = { ...good, pet: { kind: 'cow', meows: 3 } };
  const v = weld(['schema', 'validate', '--jsonl', file, '-'], `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`);
  assert.equal(v.status, 1);
  assert.match(v.stdout, /^-:2: \/pet must match exactly one schema in oneOf$/m);
  assert.doesNotMatch(v.stdout, /^-:1:/m);
});

test('pydantic 2 (recorded): discriminator, anyOf-with-null, prefixItems compile strictly', () => {
  const schema = JSON.parse(fs.readFileSync(path.join(HERE, 'pydantic2_pet.json'), 'utf8'));
  assert.ok(JSON.stringify(schema).includes('"discriminator"'));
  const answer = assertCompilesStrictly('pydantic2-pet', schema);
  assert.equal(typeof answer.name, 'string');
});

test('zod-to-json-schema, the OpenAI SDK helpers and the Anthropic SDK helper: their output compiles strictly', () => {
  const { z } = requireNode('zod');
  const { zodToJsonSchema } = requireNode('zod-to-json-schema');
  const { zodResponseFormat, zodFunction } = requireNode('openai/helpers/zod');
  const { zodOutputFormat } = requireNode('@anthropic-ai/sdk/helpers/zod');
  const zv4 = requireNode('zod/v4');
  const Cat = z.object({ kind: z.literal('cat'), meows: z.number().int().min(0).max(100).describe('how many') });
  const Dog = z.object({ kind: z.literal('dog'), barks: z.number().positive().multipleOf(0.5) });
  const Pet = z.object({
    pet: z.discriminatedUnion('kind', [Cat, Dog]),
    name: z.string().min(1, 'a name, please').max(20).regex(/^[a-z]+$/),
    color: z.enum(['red', 'blue']).optional(),
    tags: z.array(z.string()).max(5),
    meta: z.record(z.number().int()),
    born: z.string().date(),
    id: z.string().uuid(),
    email: z.string().email().nullable(),
    pair: z.tuple([z.number(), z.string()]),
  });
  assertCompilesStrictly('zod-default', zodToJsonSchema(Pet));
  // Named, the root is a $ref into definitions: a schema for `weld schema`;
  // --json-schema wants it wrapped (docs/run.md), as it says.
  assertCompilesStrictly('zod-named', zodToJsonSchema(Pet, 'Pet'), { run: false });
  const annotated = zodToJsonSchema(Pet.describe('a pet'), { errorMessages: true, markdownDescription: true });
  assert.ok(JSON.stringify(annotated).includes('"errorMessage"'));
  assert.ok(JSON.stringify(annotated).includes('"markdownDescription"'));
  assertCompilesStrictly('zod-annotated', annotated);
  const Simple = z.object({ name: z.string().describe('the name'), color: z.enum(['red', 'blue']).nullable(),
    pet: z.discriminatedUnion('kind', [Cat, Dog.extend({ barks: z.number() })]) });
  assertCompilesStrictly('openai-response-format', zodResponseFormat(Simple, 'pet').json_schema.schema);
  assertCompilesStrictly('openai-function', zodFunction({ name: 'f', parameters: Simple }).function.parameters);
  const S4 = zv4.object({ name: zv4.string().min(1).describe('the name'), color: zv4.enum(['red', 'blue']).optional(),
    n: zv4.number().int().max(5), tags: zv4.array(zv4.string()).min(2) });
  assertCompilesStrictly('anthropic-output-format', zodOutputFormat(S4).schema);
  assertCompilesStrictly('zod4-json-schema', zv4.toJSONSchema(S4));
});

test('OpenAPI 3.1 keywords and x- annotations are annotations; an unknown keyword is refused with the closest known one', () => {
  assertCompilesStrictly('openapi', {
    type: 'object', 'x-order': 1, externalDocs: { url: 'https://example.com' }, xml: { name: 'pet' },
    properties: { kind: { type: 'string', example: 'cat', 'x-go-type': 'string' } },
    discriminator: { propertyName: 'kind' },
  });
  const cases = [
    ['{"type":"object","propertees":{}}', 'strict mode: unknown keyword: "propertees" (did you mean "properties"?) at /propertees'],
    ['{"type":"object","requried":["a"]}', 'strict mode: unknown keyword: "requried" (did you mean "required"?) at /requried'],
    ['{"type":"string","minlength":1}', 'strict mode: unknown keyword: "minlength" (did you mean "minLength"?) at /minlength'],
    ['{"type":"object","additionalProperty":false}',
      'strict mode: unknown keyword: "additionalProperty" (did you mean "additionalProperties"?) at /additionalProperty'],
    ['{"type":"object","descripton":"x"}', 'strict mode: unknown keyword: "descripton" (did you mean "description"?) at /descripton'],
    ['{"type":"object","examlpe":1}', 'strict mode: unknown keyword: "examlpe" (did you mean "example"?) at /examlpe'],
    ['{"type":"object","units":"cm"}', 'strict mode: unknown keyword: "units" (an annotation of your own: name it "x-units") at /units'],
    ['{"type":"string","nullable":true}',
      'strict mode: unknown keyword: "nullable" (OpenAPI 3.0: JSON Schema ignores it and still refuses null; allow null ' +
      'with "type": ["…", "null"] or "anyOf": [{…}, {"type": "null"}]) at /nullable'],
  ];
  for (const [schema, message] of cases) {
    const check = weld(['schema', 'check', schema]);
    assert.equal(check.status, 1, schema);
    assert.equal(check.stdout, `schema is not a valid JSON Schema: ${message}\n`);
  }
});

test('--no-strict on the run and the batch compiles what strict mode refuses; the default refuses it (exit 52)', () => {
  const schema = '{"type":"object","properties":{"n":{"type":"integer","units":"cm"}},"required":["n"]}';
  const strict = weld(['--provider', 'offline', '-p', 'x', '--json-schema', schema]);
  assert.equal(strict.status, 52);
  assert.equal(strict.stderr, 'weld: --json-schema is not a valid JSON Schema: strict mode: unknown keyword: "units" ' +
    '(an annotation of your own: name it "x-units") at /properties/n/units\n');
  const lenient = weld(['--provider', 'offline', '-p', 'x', '--json-schema', schema, '--no-strict']);
  assert.equal(lenient.status, 0, lenient.stderr);
  assert.equal(typeof JSON.parse(lenient.stdout).n, 'number');
  const input = path.join(dir, 'rows.jsonl');
  fs.writeFileSync(input, '{"id":"a","text":"one"}\n{"id":"b","text":"two"}\n');
  const batchStrict = weld(['batch', '--provider', 'offline', '--json-schema', schema, '-o', path.join(dir, 'strict.jsonl'), input]);
  assert.equal(batchStrict.status, 52);
  assert.match(batchStrict.stderr, /strict mode: unknown keyword: "units"/);
  const out = path.join(dir, 'lenient.jsonl');
  const batch = weld(['batch', '--provider', 'offline', '--json-schema', schema, '--no-strict', '-o', out, input]);
  assert.equal(batch.status, 0, batch.stderr);
  assert.equal(fs.readFileSync(out, 'utf8').trim().split('\n').length, 2);
});
