/** The name checks (bin/lint-family-names.ts): code outside engine/ reaches a family through its descriptor, and web/ an operation through its handle. */
import t from 'tap';
import { familyNameLookups, operationNameLiterals } from '../../bin/lint-family-names.ts';

t.test('the tree as it stands looks up no family by a name literal', async (t) => {
  t.same(familyNameLookups(), []);
});

t.test('a lookup by literal, a constant holding a name and a helper given one are each named with file and line', async (t) => {
  const root = t.testdir({
    domain: {
      'a.ts': "const family = services.registry.get('chat');\n",
      'b.ts': "import x from 'y';\nexport const RULES = 'ticket_import_rules';\n",
      'c.ts': "const d = family(services, 'slos');\nconst s = table('synthetic_checks');\n",
    },
  });
  t.same(familyNameLookups(root, ['domain']).sort(), [
    "domain/a.ts:1: const family = services.registry.get('chat');",
    "domain/b.ts:2: export const RULES = 'ticket_import_rules';",
    "domain/c.ts:1: const d = family(services, 'slos');",
    "domain/c.ts:2: const s = table('synthetic_checks');",
  ]);
});

t.test('the descriptor’s name, a word that equals a family name and a comment pass', async (t) => {
  const root = t.testdir({
    outbound: {
      'ok.ts': [
        "import chat from '../resources/chat.ts';",
        'const family = services.registry.get(chat.name);',
        "services.metrics.attempt('chat', status);",
        "const kinds = kindsUsing('chat');",
        " * services.registry.get('chat') was how this used to read",
      ].join('\n'),
    },
  });
  t.same(familyNameLookups(root, ['outbound']), []);
});

t.test('web/ as it stands calls no operation by its name', async (t) => {
  t.same(operationNameLiterals(), []);
});

t.test('an operation name as a string in web/ is named with file and line; its handle, other words and comments pass', async (t) => {
  const root = t.testdir({
    web: {
      'a.ts': [
        "const page = await listPage(services, caller, 'list_alerts', input, cursor);",
        'const ACTIONS = { acknowledge: { op: "acknowledge_alert" } };',
        'const answer = await run(services, caller, getAlert, { id });',
        "const label = 'list';",
        " * posts to `acknowledge_alert` as REST and MCP do: 'get_alert'",
      ].join('\n'),
    },
  });
  t.same(operationNameLiterals(root, ['web']), [
    "web/a.ts:1: const page = await listPage(services, caller, 'list_alerts', input, cursor);",
    'web/a.ts:2: const ACTIONS = { acknowledge: { op: "acknowledge_alert" } };',
  ]);
});
