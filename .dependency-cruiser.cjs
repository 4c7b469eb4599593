/**
 * The layers of docs/architecture.md, checked by `npm run lint`: cli -> commands -> domain ->
 * shared leaves, never back up, and no import cycles.
 *
 * Inside the domain, every folder has a rank (docs/architecture.md, "Domain folders"): a folder
 * imports only folders of a lower rank, so no two folders can import each other, and the rank-1
 * leaves import nothing but src/shared/. A new folder gets a rank here before it can be imported.
 */
const DOMAIN_RANKS = [
  ['http', 'storage', 'time', 'schema', 'client', 'alerts'],
  ['read', 'map'],
  ['payload', 'validate'],
  ['feed'],
  ['events', 'upload'],
  ['stock', 'report'],
  ['nightly', 'sandbox', 'init', 'search'],
  ['doctor'],
];
const RANKED = DOMAIN_RANKS.flat();

const domainOrder = DOMAIN_RANKS.flatMap((folders, rank) => {
  const notBelow = DOMAIN_RANKS.slice(rank).flat();
  return folders.map((folder) => ({
    name: `domain-order-${folder}`,
    severity: 'error',
    comment:
      rank === 0
        ? `src/${folder}/ is a leaf: it imports only src/shared/. Move what it needs down, not the leaf up.`
        : `src/${folder}/ imports only folders ranked below it (${DOMAIN_RANKS.slice(0, rank).flat().join(', ')}); move the shared part down.`,
    from: { path: `^src/${folder}/` },
    to: { path: `^src/(${notBelow.filter((f) => f !== folder).join('|')})/` },
  }));
});

module.exports = {
  forbidden: [
    ...domainOrder,
    {
      name: 'domain-folder-has-a-rank',
      severity: 'error',
      comment: 'Every folder of src/ outside cli, commands and shared has a rank in DOMAIN_RANKS above.',
      from: { path: '^src/' },
      to: { path: '^src/[^/]+/', pathNot: `^src/(cli|commands|shared|${RANKED.join('|')})/` },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle hides which module owns what; break it by moving the shared part down.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'nothing-imports-cli',
      severity: 'error',
      comment: 'src/cli/ (commander, options, config, terminal, exit codes) is the top layer.',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'domain-does-not-import-commands',
      severity: 'error',
      comment: 'Domain modules take typed settings; the command actions in src/commands/ call them.',
      from: { path: '^src/', pathNot: '^src/(cli|commands)/' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'shared-leaves-stay-leaves',
      severity: 'error',
      comment:
        'src/shared/ holds leaves (errors, secrets, logger, types): they import nothing of genser above them.',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
