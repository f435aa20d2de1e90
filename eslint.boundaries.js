// The layers of src/, as each folder's README states them, enforced on every import
// (static, dynamic and type-only) by `npm run lint`. Elements are folders; the few files
// another layer may reach into without being allowed the whole folder (verify's verdict
// types, store's pure object code, git's repository lookup) are file categories, and so are
// the two entry files at the top of src/. To change a rule, change the folder's README in
// the same commit: the two say the same thing.

const FOLDERS = [
  'paths',
  'model',
  'canonical',
  'sign',
  'formats',
  'store',
  'record',
  'ledger',
  'witness',
  'verify',
  'sync',
  'export',
  'report',
  'app',
  'integrations',
  'cli',
  'mcp',
];

export const ELEMENTS = [
  { type: 'cli-json', pattern: 'src/cli/json' },
  { type: 'app-policy', pattern: 'src/app/policy' },
  ...FOLDERS.map((name) => ({ type: name, pattern: `src/${name}` })),
  { type: 'commands', pattern: 'commands' },
];

export const FILES = [
  { category: 'store-pure', pattern: 'src/store/{port,objects}.ts' },
  { category: 'store-repo', pattern: 'src/store/git/repo.ts' },
  { category: 'store-gitfile', pattern: 'src/store/git/gitfile.ts' },
  { category: 'secret-rules', pattern: 'src/record/secrets.ts' },
  { category: 'verify-data', pattern: 'src/verify/{types,verdict,signatures}.ts' },
  { category: 'library', pattern: 'src/library.ts' },
  { category: 'index', pattern: 'src/index.ts' },
];

const below = ['paths', 'model', 'canonical', 'sign', 'formats', 'store', 'record', 'ledger'];

// Who may import whom: whole folders, or only some files of a folder. A folder may always
// import its own files.
const MAY_IMPORT = {
  paths: {},
  model: {},
  canonical: { folders: ['model'] },
  sign: { folders: ['model'] },
  formats: { folders: ['model'] },
  // The pack workers run record's secret content rule (pure) on the bytes they read.
  store: { folders: ['model', 'paths'], files: ['secret-rules'] },
  record: { folders: ['model', 'formats'] },
  ledger: { folders: ['model', 'canonical', 'store'] },
  witness: { folders: ['model'], files: ['store-pure'] },
  // verify re-derives a record's claims from its kept handoff source through the registry.
  verify: {
    folders: ['model', 'canonical', 'ledger', 'record', 'sign', 'paths', 'formats'],
    files: ['store-pure'],
  },
  sync: { folders: ['model', 'canonical', 'store', 'ledger', 'verify'] },
  export: { folders: ['model'], files: ['verify-data'] },
  report: { folders: ['model', 'paths'], files: ['verify-data'] },
  // The auditor's policy and this user's state sit under the use cases: they read files, the
  // user's git config and the XDG state dir, and never call back into a command's work.
  'app-policy': {
    folders: ['model', 'canonical', 'formats', 'store', 'ledger', 'paths', 'sign', 'witness'],
    files: ['verify-data'],
  },
  app: { folders: [...below, 'witness', 'verify', 'sync', 'export', 'report', 'app-policy'] },
  // The hooks check a repository's git dir is its own before they record (store/git/gitfile.ts);
  // the MCP server's record asks the record to check it (ownGitDirOnly).
  integrations: {
    folders: ['app', 'formats', 'model', 'paths', 'record'],
    files: ['store-repo', 'store-gitfile', 'library'],
  },
  'cli-json': { folders: ['model', 'formats'], files: ['verify-data'] },
  // cli's fast path (src/cli/fast-path.ts) starts the MCP server without loading oclif.
  cli: {
    folders: ['app', 'formats', 'integrations', 'model', 'paths', 'verify', 'cli-json', 'mcp'],
  },
  mcp: {
    folders: ['formats', 'model', 'cli-json'],
    files: ['verify-data', 'library'],
  },
  commands: {
    folders: [
      'app',
      'cli',
      'cli-json',
      'formats',
      'integrations',
      'model',
      'paths',
      'verify',
      'mcp',
    ],
    files: ['library', 'store-repo'],
  },
};

// src/library.ts (the package's API) and src/index.ts (the commands' shared entry) belong to
// no folder: they are matched by file.
const ENTRY_FILES = {
  library: ['app', 'formats', 'model', 'verify'],
  index: ['app', 'model', 'verify'],
};

// Type-only imports that run against the layers, and why each is harmless: they are erased at
// build time, so they load nothing and cannot make a circle at run time.
const TYPES_ONLY = {
  // The JSON answers app/views.ts builds are typed by their zod schemas (one declaration each).
  app: ['cli-json'],
};

export const BOUNDARY_POLICIES = Object.entries(MAY_IMPORT)
  .flatMap(([from, rule]) => [
    {
      from: { element: { type: from } },
      allow: { to: { element: { type: [from, ...(rule.folders ?? [])] } } },
    },
    ...(rule.files ?? []).map((category) => ({
      from: { element: { type: from } },
      allow: { to: { file: { categories: category } } },
    })),
  ])
  .concat(
    Object.entries(TYPES_ONLY).flatMap(([from, folders]) =>
      folders.map((to) => ({
        from: { element: { type: from } },
        allow: { to: { element: { type: to } }, dependency: { kind: 'type' } },
      })),
    ),
    Object.entries(ENTRY_FILES).map(([category, folders]) => ({
      from: { file: { categories: category } },
      allow: { to: { element: { type: folders } } },
    })),
  );
