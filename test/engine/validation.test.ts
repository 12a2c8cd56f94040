/** Field errors name the field and the rule, from the schema; never the submitted value. */
import t from 'tap';
import Type from 'typebox';
import { checkValue, nestedDeeperThan, unstorableText } from '../../engine/validation.ts';
import { boundedByColumn, INT_COLUMN } from '../../engine/fields.ts';
import { nullable } from '../../engine/descriptor.ts';

t.test('a union of object shapes reports against the closest shape', async (t) => {
  const credentials = nullable(
    Type.Union([
      Type.Object({ username: Type.String({ minLength: 1 }), password: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      Type.Object({ token: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    ]),
  );
  t.same(checkValue('credentials', credentials, { username: 'ci' }), [{ field: 'credentials.password', message: 'is required' }]);
  t.same(checkValue('credentials', credentials, { token: '' }), [{ field: 'credentials.token', message: 'must be a non-empty string' }]);
  t.same(checkValue('credentials', credentials, 'secret-token'), [{ field: 'credentials', message: 'must be an object shaped { username, password } or { token }, or null' }]);
  t.same(checkValue('credentials', credentials, null), []);
});

t.test('limits are described from the schema', async (t) => {
  t.same(checkValue('events', Type.Array(Type.String(), { minItems: 1, maxItems: 9 }), []), [{ field: 'events', message: 'must be an array from 1 to 9 items' }]);
  t.same(checkValue('n', Type.Integer({ minimum: 1, maximum: 10 }), 11), [{ field: 'n', message: 'must be an integer from 1 to 10' }]);
  const secret = 'hunter2-do-not-echo';
  t.notOk(JSON.stringify(checkValue('api_key', Type.String({ maxLength: 5 }), secret)).includes(secret), 'the value is never echoed');
});

t.test('integer fields are bounded by their int column; tighter bounds, other types and write-only fields stay', async (t) => {
  const bounded = boundedByColumn(Type.Integer({ minimum: 1 })) as unknown as Record<string, unknown>;
  t.same({ ...bounded }, { type: 'integer', minimum: 1, maximum: INT_COLUMN.maximum });
  t.equal(bounded['~kind'], 'Integer', 'TypeBox\'s hidden kind is kept');
  const tight = Type.Integer({ minimum: 0, maximum: 23 });
  t.equal(boundedByColumn(tight), tight, 'already within the column: the same schema');
  const nullableInt = boundedByColumn(nullable(Type.Integer())) as unknown as { anyOf: Record<string, unknown>[] };
  t.same(nullableInt.anyOf[0], { type: 'integer', minimum: INT_COLUMN.minimum, maximum: INT_COLUMN.maximum });
  const number = Type.Number();
  t.equal(boundedByColumn(number), number, 'a double column holds any finite number');
  const sealed = Type.Integer({ writeOnly: true });
  t.equal(boundedByColumn(sealed), sealed, 'a write-only value is stored sealed, as text');
  t.same(checkValue('n', boundedByColumn(Type.Integer()), 2 ** 31), [{ field: 'n', message: 'must be an integer from -2147483648 to 2147483647' }]);
});

t.test('unstorable text and nesting depth are measured without recursion limits', async (t) => {
  t.equal(unstorableText({ a: ['ok', 'x\ud800'] }), 'must not contain unpaired UTF-16 surrogates');
  t.equal(unstorableText({ 'k\u0000': 1 }), 'must not contain NUL characters');
  t.equal(unstorableText({ a: 'x\ud83d\ude00' }), undefined, 'a surrogate pair is fine');
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  t.equal(nestedDeeperThan(deep, 64), true);
  t.equal(nestedDeeperThan([[[1]]], 3), false);
  t.equal(nestedDeeperThan([[[[1]]]], 3), true);
  t.equal(nestedDeeperThan('text', 0), false);
});
