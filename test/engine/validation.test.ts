/** Field errors name the field and the rule, from the schema; never the submitted value. */
import t from 'tap';
import Type from 'typebox';
import { checkValue } from '../../engine/validation.ts';
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
