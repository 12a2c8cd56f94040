/**
 * Which way imports run (DESIGN.md, "Layout"), checked in CI by `npm run lint:imports`.
 * Paths are relative to the repository root; every rule names the edge it forbids and says why.
 */
const OURS = '^(bin|engine|resources|webhooks|domain|outbound|web|export|importers|migrations)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle, between folders or inside one, means neither side can be read, tested or moved alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      severity: 'error',
      scope: 'folder',
      comment: 'Folders form a cycle when modules of each import the other (outbound <-> outbound/chat, alerts <-> ai) even though no single module cycle exists: then neither folder stands alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve fails at run time; Node would only tell us when the line runs.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'engine-imports-no-folder',
      severity: 'error',
      comment: 'The engine is generic: it receives registry, modules and settings as arguments and knows no family, domain or channel.',
      from: { path: '^engine/' },
      to: { path: '^(bin|resources|webhooks|domain|outbound|web|export|importers|migrations)/' },
    },
    {
      name: 'migrations-import-none-of-ours',
      severity: 'error',
      comment: 'A committed migration is history: it must build the same tables whatever the code becomes, so it imports only MikroORM, and bin/ hands the list to the engine.',
      from: { path: '^migrations/' },
      to: { path: OURS, pathNot: '^migrations/' },
    },
    {
      name: 'resources-import-only-engine',
      severity: 'error',
      comment: 'A descriptor is data for the engine; anything else it imported would load into every tool that lists families.',
      from: { path: '^resources/' },
      to: { path: '^(bin|webhooks|domain|outbound|web|export|importers)/' },
    },
    {
      name: 'export-imports-only-engine',
      severity: 'error',
      comment: 'HCL export and plan/apply work on any family the registry it is given holds; they name none.',
      from: { path: '^export/' },
      to: { path: '^(bin|resources|webhooks|domain|outbound|web|importers)/' },
    },
    {
      name: 'importers-import-engine-resources-export',
      severity: 'error',
      comment: 'An importer is a translator (DESIGN.md): it reads another tool\'s API and writes rows of our families through their descriptors with the export\'s HCL writer. It runs on the operator\'s machine, never inside the service, so nothing of the service\'s parts (domain, outbound, webhooks, web) is its business.',
      from: { path: '^importers/' },
      to: { path: '^(bin|webhooks|domain|outbound|web|migrations)/' },
    },
    {
      name: 'only-bin-imports-importers',
      severity: 'error',
      comment: 'The importers are the CLI\'s (`vigil import`); no part of the service imports them.',
      from: { path: OURS, pathNot: '^(bin|importers)/' },
      to: { path: '^importers/' },
    },
    {
      name: 'outbound-imports-engine-and-resources',
      severity: 'error',
      comment: 'What leaves the service is told what to send (publish, events); it never reaches back into what produced it.',
      from: { path: '^outbound/' },
      to: { path: '^(bin|webhooks|domain|web|export)/' },
    },
    {
      name: 'domain-imports-engine-resources-and-outbound-entry-points',
      severity: 'error',
      comment: [
        'The domain decides; what should leave it hands to outbound through its entry points only:',
        'publish.ts (publish events, in the caller\'s transaction), events.ts (the events it builds),',
        'rules.ts (the organization\'s outbound rules, read in the caller\'s own round trip so no event is built that no',
        'rule, chat or email takes: the alert pipeline reads them with its policy in one select, the card writer once a batch)',
        'and alerts.ts (the alert pipeline\'s announcer: handed whom the domain\'s routing pages, it sends pages and alert events). Plus net/, the one guarded HTTP client,',
        'for the domain\'s own calls (AI providers, probes, the code host, trackers). And mail.ts, mail to one person who asked for it',
        '(a status page subscriber), queued in the caller\'s transaction.',
        'Deliveries, chat, email, rendering and preferences stay outbound\'s own business.',
      ].join(' '),
      from: { path: '^domain/' },
      to: {
        path: '^(bin|webhooks|outbound|web|export)/',
        pathNot: '^outbound/(publish|events|rules|alerts|mail)\\.ts$|^outbound/net/',
      },
    },
    {
      name: 'inbound-and-web-import-engine-resources-domain',
      severity: 'error',
      comment: [
        'webhooks/ and web/ take requests in and hand them to the domain; they do not send (outbound) except through',
        'net/, the one guarded HTTP client (webhooks: the SNS subscription confirmation).',
      ].join(' '),
      from: { path: '^(webhooks|web)/' },
      to: { path: '^(bin|outbound|export)/', pathNot: '^outbound/net/' },
    },
    {
      name: 'webhooks-not-web',
      severity: 'error',
      comment: 'The inbound webhooks and the pages for people are separate parts; only bin/ puts them together.',
      from: { path: '^webhooks/' },
      to: { path: '^web/' },
    },
    {
      name: 'web-not-webhooks',
      severity: 'error',
      comment: 'The pages for people and the inbound webhooks are separate parts; only bin/ puts them together.',
      from: { path: '^web/' },
      to: { path: '^webhooks/' },
    },
    {
      name: 'only-bin-imports-modules',
      severity: 'error',
      comment: 'A module as a whole (its module.ts) is plugged in by the composition root alone; parts use each other\'s functions, not modules.',
      from: { path: OURS, pathNot: '^bin/' },
      to: { path: ['^(webhooks|web|domain|outbound|export)/module\\.ts$', '^(webhooks|web|domain|outbound|export)/[^/]+/module\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // test/, bench/ and .ci/ are not held to the layout (they reach into every folder by design)
    exclude: { path: ['^(node_modules|test|bench|\\.ci)/'] },
    // `import type` lines count too: Node erases them, but a type the wrong way still ties the two sides together for
    // a reader and for tsc. Types that two sides share live where both may import them (engine/services.ts,
    // domain/webhook-contract.ts).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
