// Turning bench results into targets (pass/fail), a table for stdout and the BENCHMARKS.md section.

export const MiB = 1024 * 1024;

/** Peak RSS of genser validate at `n` rows, the larger of the two catalog shapes. */
function rssAt(r, n) {
  const values = [r.validate?.[n]?.genser?.maxRssMiB, r.validateShort?.[n]?.genser?.maxRssMiB].filter(
    (v) => typeof v === 'number',
  );
  return values.length ? Math.max(...values) : null;
}

/** 1M / 100k peak RSS of one shape's validate figures, or null. */
function rssGrowth(bySize) {
  const big = bySize?.['1000000']?.genser?.maxRssMiB;
  const small = bySize?.['100000']?.genser?.maxRssMiB;
  return big && small ? big / small : null;
}

/**
 * The targets on the 2-core machine: issue 12's (validate on both catalog shapes, CPU per row
 * on one thread, threads, memory, upload) and issue 5's (sandbox, start-up).
 * `value(results)` returns the figure or null.
 */
export const TARGETS = [
  {
    id: 'validate-ratio',
    figure: 'validate time / papaparse parse-only, 1.6 KB rows',
    target: '<= 1.3x',
    value: (r) => largest(r.validate)?.ratio ?? null,
    pass: (v) => v <= 1.3,
    fmt: (v) => `${v.toFixed(2)}x`,
  },
  {
    id: 'validate-ratio-short',
    figure: 'validate time / papaparse parse-only, short rows',
    target: '<= 1.3x',
    value: (r) => largest(r.validateShort)?.ratio ?? null,
    pass: (v) => v <= 1.3,
    fmt: (v) => `${v.toFixed(2)}x`,
  },
  {
    id: 'validate-cpu-row',
    figure: "validate CPU per row / papaparse's, one thread, short rows (start-up netted out)",
    target: '<= 2.0x',
    value: (r) => r.oneThread?.short?.ratio ?? null,
    pass: (v) => v <= 2,
    fmt: (v) => `${v.toFixed(2)}x`,
  },
  {
    id: 'validate-throughput',
    figure: 'validate throughput, short rows',
    target: '>= 150k rows/s',
    value: (r) => largest(r.validateShort)?.genser?.rowsPerSec ?? null,
    pass: (v) => v >= 150_000,
    fmt: (v) => `${Math.round(v / 100) / 10}k rows/s`,
  },
  {
    id: 'threads-speedup',
    figure: '`--threads 2` against `--threads 1` (wall time)',
    target: '>= 1.7x faster',
    value: (r) => r.threads?.speedup ?? null,
    pass: (v) => v >= 1.7,
    fmt: (v) => `${v.toFixed(2)}x`,
  },
  {
    id: 'rss-1m',
    figure: 'peak RSS at 1M rows (larger shape)',
    target: '<= 150 MiB',
    value: (r) => rssAt(r, '1000000'),
    pass: (v) => v <= 150,
    fmt: (v) => `${v.toFixed(0)} MiB`,
  },
  {
    id: 'rss-flat',
    figure: 'peak RSS 1M / 100k (larger shape)',
    target: '<= 1.2x',
    value: (r) => {
      const values = [rssGrowth(r.validate), rssGrowth(r.validateShort)].filter((v) => v !== null);
      return values.length ? Math.max(...values) : null;
    },
    pass: (v) => v <= 1.2,
    fmt: (v) => `${v.toFixed(2)}x`,
  },
  {
    id: 'upload-overlap',
    figure: 'upload / (validate + bare post)',
    target: '<= 1.0',
    value: (r) => r.upload?.ratio ?? null,
    pass: (v) => v <= 1.0,
    fmt: (v) => v.toFixed(2),
  },
  {
    id: 'nightly-postgres',
    figure: 'nightly second run (1% changed), state in PostgreSQL / in SQLite',
    target: '<= 1.5x',
    value: (r) => r.nightly?.pgRatio ?? null,
    pass: (v) => v <= 1.5,
    fmt: (v) => `${v.toFixed(2)}x`,
  },
  {
    id: 'nightly-ratio',
    figure: 'nightly second run (1% changed) / validate',
    target: '<= 1.2x',
    value: (r) => r.nightly?.ratio ?? null,
    pass: (v) => v <= 1.2,
    fmt: (v) => `${v.toFixed(2)}x`,
  },
  {
    id: 'state-size',
    figure: 'upload state after run 1 / payload bytes sent (nightly case)',
    target: '<= 0.35x',
    value: (r) => r.nightly?.stateRatio ?? null,
    pass: (v) => v <= 0.35,
    fmt: (v) => `${v.toFixed(2)}x`,
  },
  {
    id: 'sandbox-ingest',
    figure: 'sandbox ingest',
    target: '>= 20k products/s',
    value: (r) => r.sandbox?.productsPerSec ?? null,
    pass: (v) => v >= 20_000,
    fmt: (v) => `${Math.round(v / 100) / 10}k/s`,
  },
  {
    id: 'startup',
    figure: '`genser --version` / `node -e 0`',
    target: '<= 2x',
    value: (r) => r.startup?.versionRatio ?? null,
    pass: (v) => v <= 2,
    fmt: (v) => `${v.toFixed(2)}x`,
  },
];

/** The entry of the largest catalog that has a genser figure (targets are judged on it). */
export function largest(bySize) {
  if (!bySize) return null;
  const sizes = Object.keys(bySize)
    .map(Number)
    .filter((n) => bySize[n]?.genser?.ms != null)
    .sort((a, b) => b - a);
  return sizes.length ? bySize[sizes[0]] : null;
}

export function evaluateTargets(results) {
  return TARGETS.map((t) => {
    const v = t.value(results);
    const measured = typeof v === 'number' && Number.isFinite(v);
    return {
      id: t.id,
      figure: t.figure,
      target: t.target,
      value: measured ? v : null,
      shown: measured ? t.fmt(v) : 'not measured',
      status: measured ? (t.pass(v) ? 'pass' : 'FAIL') : 'n/a',
    };
  });
}

const num = (v, digits = 0) =>
  v == null
    ? '-'
    : Number(v).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const secs = (ms) => (ms == null ? '-' : `${(ms / 1000).toFixed(2)} s`);
const mib = (v) => (v == null ? '-' : `${v.toFixed(0)} MiB`);

function table(header, rows) {
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
  ];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

/** The validate / papaparse / Miller table of one catalog shape, when it was measured. */
function validateTable(out, title, v, catalogs) {
  const sizes = Object.keys(v ?? {})
    .map(Number)
    .sort((a, b) => a - b);
  if (!sizes.length) return;
  out.push('', `### ${title}`, '');
  const rows = [];
  for (const n of sizes) {
    const e = v[n];
    const cat = catalogs?.[n];
    const size = cat ? `${(cat.bytes / MiB).toFixed(0)} MiB` : '';
    for (const [label, f] of [
      ['papaparse parse-only', e.papaparse],
      ['genser validate', e.genser],
      ['mlr --icsv --ojsonl cat', e.mlr],
    ]) {
      if (!f) continue;
      rows.push([
        `${num(n)} rows (${size})`,
        label,
        f.ms == null ? (f.note ?? 'not available') : secs(f.ms),
        num(f.rowsPerSec),
        num(f.mibPerSec, 1),
        mib(f.maxRssMiB),
        f.cores == null ? '-' : f.cores.toFixed(2),
        label === 'genser validate' && e.ratio != null ? `${e.ratio.toFixed(2)}x` : '',
      ]);
    }
  }
  out.push(
    table(['catalog', 'tool', 'time', 'rows/s', 'MiB/s', 'peak RSS', 'cores used', 'vs papaparse'], rows),
  );
}

/** Markdown for the figures of one run (used for stdout and for BENCHMARKS.md). */
export function renderResults(results) {
  const out = [];
  const m = results.machine;
  out.push(
    `Run ${results.generatedAt}${results.quick ? ' (--quick)' : ''}, ${results.runs} run(s) per figure (median); ` +
      `${m.cpus} x ${m.cpuModel}, ${m.memGiB} GiB RAM, Node ${m.node}, ${m.os}; load average at start ${m.loadAtStart}.`,
  );
  out.push('');
  out.push('### Targets', '');
  out.push(
    table(
      ['figure', 'target', 'measured', ''],
      results.targets.map((t) => [t.figure, t.target, t.shown, t.status]),
    ),
  );

  validateTable(
    out,
    'validate vs papaparse (parse-only) vs Miller, 1.6 KB rows',
    results.validate,
    results.catalogs,
  );
  validateTable(
    out,
    'validate vs papaparse (parse-only), short rows (about 336 bytes)',
    results.validateShort,
    results.shortCatalogs,
  );

  const ot = results.oneThread;
  if (ot && (ot.long || ot.short)) {
    out.push('', '### validate on one thread (GENSER_THREADS=0): CPU time per row', '');
    out.push(
      'CPU = user + sys of the whole process (GNU time); "net" subtracts the same command on a header-only file (start-up: modules, schemas).',
      '',
    );
    const rows = [];
    for (const [label, f] of [
      ['1.6 KB rows', ot.long],
      ['short rows', ot.short],
    ]) {
      if (!f) continue;
      if (f.ratio == null) {
        rows.push([label, f.note ?? 'not measured', '', '', '', '', '']);
        continue;
      }
      rows.push([
        `${label}, ${num(f.rows)}`,
        secs(f.genserCpuMs),
        secs(f.papaparseCpuMs),
        `${num(f.genserUsPerRow, 2)} / ${num(f.papaparseUsPerRow, 2)} us`,
        `${num(f.genserNetUsPerRow, 2)} / ${num(f.papaparseNetUsPerRow, 2)} us`,
        `${num(f.genserStartCpuMs)} / ${num(f.papaparseStartCpuMs)} ms`,
        `${f.ratio.toFixed(2)}x`,
      ]);
    }
    out.push(
      table(
        [
          'catalog',
          'genser CPU',
          'papaparse CPU',
          'per row, genser / papaparse',
          'net per row',
          'start-up CPU',
          'net ratio',
        ],
        rows,
      ),
    );
  }

  const th = results.threads;
  if (th) {
    out.push('', '### --threads 1 and --threads 2, side by side', '');
    if (th.speedup == null) out.push(th.note ?? 'not measured');
    else {
      out.push(
        table(
          ['catalog', 'threads', 'time', 'rows/s', 'CPU (user + sys)', 'cores used', 'peak RSS'],
          [
            ['1', th.threads1, th.cpuMs1],
            ['2', th.threads2, th.cpuMs2],
          ].map(([n, f, cpu]) => [
            `${num(th.rows)} ${th.shape} rows`,
            n,
            secs(f.ms),
            num(f.rowsPerSec),
            secs(cpu),
            f.cores == null ? '-' : f.cores.toFixed(2),
            mib(f.maxRssMiB),
          ]),
        ),
        '',
        `--threads 2 is ${th.speedup.toFixed(2)}x as fast as --threads 1 (median of the per-round ratios).`,
      );
    }
  }

  const c = results.convert ?? {};
  const cSizes = Object.keys(c);
  if (cSizes.length) {
    out.push('', '### convert', '');
    out.push(
      table(
        ['catalog', 'time', 'rows/s', 'MiB/s', 'peak RSS'],
        cSizes.map((n) => {
          const f = c[n];
          return [
            `${num(Number(n))} rows`,
            f.ms == null ? (f.note ?? 'not available') : secs(f.ms),
            num(f.rowsPerSec),
            num(f.mibPerSec, 1),
            mib(f.maxRssMiB),
          ];
        }),
      ),
    );
  }

  const u = results.upload;
  if (u) {
    out.push('', '### upload to a local sink', '');
    if (u.note && u.uploadMs == null) out.push(u.note);
    else {
      out.push(
        `${num(u.rows)} rows, ${num(u.batches)} batches of up to ${u.batchSize}, concurrency ${u.concurrency}.`,
        '',
        table(
          ['step', 'time', 'rows/s', 'CPU (user + sys)', 'peak RSS'],
          [
            [
              'genser validate (same file)',
              secs(u.validateMs),
              num(u.rows / (u.validateMs / 1000)),
              secs(u.validateCpuMs),
              mib(u.validateRssMiB),
            ],
            [
              'bare undici loop, pre-built batches',
              secs(u.bareMs),
              num(u.rows / (u.bareMs / 1000)),
              // Its process also loads the recorded bodies before its clock starts: no CPU figure.
              '-',
              '-',
            ],
            [
              'genser upload',
              secs(u.uploadMs),
              num(u.rows / (u.uploadMs / 1000)),
              secs(u.uploadCpuMs),
              mib(u.uploadRssMiB),
            ],
          ],
        ),
        '',
        `upload / (validate + bare post) = ${u.ratio == null ? '-' : u.ratio.toFixed(2)}`,
      );
      if (u.cpuFloorRatio != null)
        out.push(
          '',
          `upload's CPU time / ${results.machine.cpus} cores / (validate + bare post) = ${u.cpuFloorRatio.toFixed(2)} (median of the rounds): ` +
            'the least the ratio above can be on this machine, however well reading and sending overlap.',
        );
    }
  }

  const nt = results.nightly;
  if (nt) out.push('', '### nightly: the second run, 1% changed', '', ...nightlyLines(nt));

  const s = results.sandbox;
  if (s) {
    out.push('', '### sandbox ingest', '');
    out.push(
      s.productsPerSec == null
        ? (s.note ?? 'not available')
        : `${num(s.products)} products in envelopes of ${s.envelopeSize}, concurrency ${s.concurrency}: ` +
            `${secs(s.ms)}, ${num(s.productsPerSec)} products/s accepted${s.note ? ` (${s.note})` : ''}.`,
    );
  }

  const st = results.startup;
  if (st) {
    out.push('', '### start-up', '');
    out.push(
      table(
        ['command', 'median', 'vs node -e 0'],
        [
          ['node -e 0', `${num(st.nodeMs, 1)} ms`, '1.00x'],
          [
            'genser --version',
            `${num(st.versionMs, 1)} ms`,
            st.versionRatio == null ? '-' : `${st.versionRatio.toFixed(2)}x`,
          ],
          [
            'genser --help',
            `${num(st.helpMs, 1)} ms`,
            st.helpRatio == null ? '-' : `${st.helpRatio.toFixed(2)}x`,
          ],
        ],
      ),
    );
  }

  if (results.notes?.length) {
    out.push('', '### Notes from this run', '');
    for (const n of results.notes) out.push(`- ${n}`);
  }
  return out.join('\n');
}

/** The nightly case: run 1 into a new state, then the second run against validate, and the state's size. */
function nightlyLines(nt) {
  if (nt.note && nt.secondMs == null) return [nt.note];
  const row = (step, ms, cpu, rss) => [step, secs(ms), num(nt.rows / (ms / 1000)), secs(cpu), mib(rss)];
  return [
    `${num(nt.rows)} rows, ${num(nt.changedRows)} of them priced differently in the second feed; ` +
      `batches of up to ${nt.batchSize}, concurrency ${nt.concurrency}, to a local sink. Each second run ` +
      "finds its state as last night's run left it (checked and sealed; no check or copy due).",
    '',
    table(
      ['step', 'time', 'rows/s', 'CPU (user + sys)', 'peak RSS'],
      [
        row('run 1: everything new (once)', nt.firstMs, nt.firstCpuMs, nt.firstRssMiB),
        row('genser validate (second feed)', nt.validateMs, nt.validateCpuMs, nt.validateRssMiB),
        row('second run: upload, guard on (one read)', nt.secondMs, nt.secondCpuMs, nt.secondRssMiB),
        row('second run, --max-change 100% (no guard)', nt.streamedMs, nt.streamedCpuMs, nt.streamedRssMiB),
        ...(nt.pgSecondMs != null
          ? [
              row('PostgreSQL state: run 1 (once)', nt.pgFirstMs, nt.pgFirstCpuMs, null),
              row(
                'PostgreSQL state: second run, guard on',
                nt.pgSecondMs,
                nt.pgSecondCpuMs,
                nt.pgSecondRssMiB,
              ),
            ]
          : []),
      ],
    ),
    ...(nt.pgRatio != null
      ? [
          '',
          `second run with the state in PostgreSQL / in SQLite = ${nt.pgRatio.toFixed(2)}x (a local server, durability off)`,
        ]
      : nt.pgNote
        ? ['', nt.pgNote]
        : []),
    '',
    `second run / validate = ${nt.ratio == null ? '-' : `${nt.ratio.toFixed(2)}x`}` +
      ` (without the guard: ${nt.streamedRatio == null ? '-' : `${nt.streamedRatio.toFixed(2)}x`})`,
    '',
    `state after run 1: ${num(nt.stateBytes / MiB, 1)} MiB for ${num(nt.stateSkus)} SKUs, ` +
      `${num(nt.stateBytesPer100k / MiB, 1)} MiB per 100k SKUs (SQLite file and WAL)` +
      (nt.sentBytes == null
        ? '.'
        : `; run 1 sent ${num(nt.sentBytesPer100k / MiB, 1)} MiB per 100k SKUs (request bodies): ` +
          `state / sent = ${nt.stateRatio.toFixed(2)}x.`),
  ];
}

export const START = '<!-- bench:results:start (written by `npm run bench`; edit outside these markers) -->';
export const END = '<!-- bench:results:end -->';

/** Replaces the marked section of `doc` with `content` (appends the section when absent). */
export function replaceMarked(doc, content) {
  const block = `${START}\n\n${content}\n\n${END}`;
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a >= 0 && b > a) return doc.slice(0, a) + block + doc.slice(b + END.length);
  return `${doc.trimEnd()}\n\n## Latest figures\n\n${block}\n`;
}

/** JSON as biome formats it: two-space indent, arrays of plain values on one line when they fit. */
export function formatJson(value) {
  const text = JSON.stringify(value, null, 2).replace(
    /\[\n\s*([^[\]{}]*?)\n\s*\]/g,
    (whole, inner, at, all) => {
      const items = inner.split(/,\n\s*/);
      const lineStart = all.lastIndexOf('\n', at) + 1;
      const oneLine = `[${items.join(', ')}]`;
      return at - lineStart + oneLine.length + 1 <= 110 ? oneLine : whole;
    },
  );
  return `${text}\n`;
}
