/** The reporters `--reporter` knows (docs/ci.md); apart from the renderers so the option table loads fast. */
export const REPORTER_NAMES = ['human', 'json', 'junit', 'github', 'html'] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];
