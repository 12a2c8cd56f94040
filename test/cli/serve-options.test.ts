/** `vigil serve`'s environment: the webhook rate-limit settings are read as documented, and bad values refused. */
import t from 'tap';
import { serviceOptions } from '../../bin/serve.ts';

t.test('VIGIL_WEBHOOK_RATE_LIMIT and VIGIL_WEBHOOK_RATE_LIMIT_STORE', async (t) => {
  t.doesNotThrow(() => serviceOptions({}), 'both unset: 600 a minute, counted in memory');
  t.doesNotThrow(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT: '1200', VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'memory' }));
  t.doesNotThrow(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: 'postgres://u@127.0.0.1:1/x' }));
  for (const value of ['0', '-5', '1.5', 'lots']) {
    t.throws(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT: value }), /VIGIL_WEBHOOK_RATE_LIMIT must be a whole number/, `limit ${value} refused`);
  }
  t.throws(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'redis' }), /must be memory or postgres/);
  t.throws(() => serviceOptions({ VIGIL_WEBHOOK_RATE_LIMIT_STORE: 'postgres' }), /needs DATABASE_URL/, 'the shared store needs PostgreSQL');
});
