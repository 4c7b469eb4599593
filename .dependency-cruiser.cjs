/**
 * The layers of docs/architecture.md, checked by `npm run lint`: cli -> commands -> domain ->
 * shared leaves, never back up, and no import cycles.
 */
module.exports = {
  forbidden: [
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
