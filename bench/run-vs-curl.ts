// The whole `flowdeck run --out DIR` of a job with a 1 GiB output, as users run it (the built CLI,
// library on, a fresh data folder each round), side by side with `curl -o` of the same signed URL,
// alternating which goes first. Cloud flavour of the demo service in its own process: /api/view
// answers 302 to a signed storage URL. The job's node outputs a prepared file at once (see
// support/demo-child.ts), so the time is the client's: submit, follow, download, library, --out.
// Each round also times a plain Node client that keeps the same guarantees (sha256, two fsynced
// files; support/plain-durable-download.mjs), to show what they cost when done plainly, and curl
// followed by sync of its one file, what durability alone costs.
//   npx tsx bench/run-vs-curl.ts [rounds]          (needs `npm run build` first: out/main/cli.js)
//   FLOWDECK_BENCH_CPU_PROF=DIR ...                runs the Flowdeck side under node --cpu-prof
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeIncompressibleFile } from './support/big-file';
import { alternateRounds, BASELINE_CLI, CLI, cpuProfileArgs, inWorkDir, loadAverage, median, requireBuiltCli } from './support/cli-bench';
import { measureCommand, startDemoChild, timeCommand, type MeasuredRun } from './support/processes';
import { signedUrl } from './support/signed-url';

const GiB = 1024 ** 3;
const ROUNDS = Math.max(1, Number(process.argv[2] ?? 3));

interface RunJson {
  status: string;
  outputs: { path: string; library_path: string | null }[];
}

/** When the CLI's progress lines (stderr) said what: seconds from the start of the process. */
interface Phases {
  submitted: number;
  succeeded: number;
  /** The output is in the library AND copied into --out (run.ts logs after the copy). */
  delivered: number;
}

async function flowdeckRun(work: string, workflowPath: string, url: string, key: string, round: number, cli = CLI): Promise<MeasuredRun & { phases: Phases }> {
  const dataDir = join(work, `data-${round}${cli === CLI ? '' : '-baseline'}`);
  const outDir = join(work, `out-${round}${cli === CLI ? '' : '-baseline'}`);
  mkdirSync(dataDir);
  const nodeArgs = cpuProfileArgs(`run-vs-curl-${round}`);
  try {
    const phases: Phases = { submitted: NaN, succeeded: NaN, delivered: NaN };
    const measured = await measureCommand(process.execPath, [...nodeArgs, cli, 'run', workflowPath, '--server', url, '--out', outDir, '--json'], {
      env: { ...process.env, FLOWDECK_DATA_DIR: dataDir, FLOWDECK_API_KEY: key },
      onStderrLine: (line, at) => {
        if (line.startsWith('submitted job')) phases.submitted = at;
        else if (line.startsWith('succeeded')) phases.succeeded = at;
        else if (line.startsWith('downloaded')) phases.delivered = at;
      },
    });
    const result = JSON.parse(measured.stdout) as RunJson;
    const output = result.outputs[0];
    if (result.status !== 'succeeded' || !output) throw new Error(`flowdeck run ended ${result.status}`);
    if (statSync(output.path).size !== GiB) throw new Error(`--out holds ${statSync(output.path).size} bytes, expected ${GiB}`);
    // As users have it: the output is in the library too (not only in --out).
    if (!output.library_path || statSync(output.library_path).size !== GiB) throw new Error('the output did not reach the library');
    return { ...measured, phases };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(outDir, { recursive: true, force: true });
  }
}

const PLAIN_DURABLE_CLIENT = join(import.meta.dirname, 'support/plain-durable-download.mjs');

/** A plain Node client with the same guarantees (support/plain-durable-download.mjs) on a fresh signed URL: wall and CPU seconds. */
async function plainDurableRun(work: string, url: string, key: string, ref: { filename: string; subfolder: string; type: string }): Promise<MeasuredRun> {
  const files = [join(work, 'plain-a.bin'), join(work, 'plain-b.bin')];
  const location = await signedUrl(url, key, ref);
  try {
    return await measureCommand(process.execPath, [PLAIN_DURABLE_CLIENT, location, ...files]);
  } finally {
    for (const file of files) rmSync(file, { force: true });
  }
}

/** curl on a fresh signed URL: wall seconds, and its CPU seconds (GNU time) when not synced. */
async function curlRun(
  work: string,
  url: string,
  key: string,
  ref: { filename: string; subfolder: string; type: string },
  sync: boolean,
): Promise<{ seconds: number; cpuSeconds: number }> {
  const target = join(work, 'curl.bin');
  const location = await signedUrl(url, key, ref);
  try {
    if (sync) return { seconds: await timeCommand('sh', ['-c', 'curl -s -f -o "$1" "$2" && sync "$1"', 'sh', target, location]), cpuSeconds: NaN };
    const measured = await measureCommand('curl', ['-s', '-f', '-o', target, location], { quiet: true });
    return { seconds: measured.seconds, cpuSeconds: measured.cpuSeconds };
  } finally {
    rmSync(target, { force: true });
  }
}

export async function runVsCurlBench(): Promise<Record<string, number>> {
  requireBuiltCli();
  execFileSync('curl', ['--version'], { stdio: 'ignore' });
  return inWorkDir('flowdeck-bench-run-', async (work) => {
    const loadBefore = loadAverage();
    const big = join(work, 'big.bin');
    writeIncompressibleFile(big, GiB);
    const workflowPath = join(work, 'big-output.json');
    writeFileSync(workflowPath, JSON.stringify({ '1': { class_type: 'BigOutput', inputs: {} } }));
    const cloud = await startDemoChild('cloud', big);
    const flowdeck: (MeasuredRun & { phases: Phases })[] = [];
    const curl: number[] = [];
    const curlSynced: number[] = [];
    const curlCpu: number[] = [];
    const baseline: MeasuredRun[] = [];
    const plainDurable: MeasuredRun[] = [];
    try {
      const key = cloud.apiKey!;
      const ref = cloud.ref!;
      await alternateRounds(
        ROUNDS,
        async (round) => void flowdeck.push(await flowdeckRun(work, workflowPath, cloud.url, key, round)),
        async (round) => {
          const plain = await curlRun(work, cloud.url, key, ref, false);
          curl.push(plain.seconds);
          curlCpu.push(plain.cpuSeconds);
          curlSynced.push((await curlRun(work, cloud.url, key, ref, true)).seconds);
          plainDurable.push(await plainDurableRun(work, cloud.url, key, ref));
          if (BASELINE_CLI) baseline.push(await flowdeckRun(work, workflowPath, cloud.url, key, round, BASELINE_CLI));
        },
        (round) => {
          const f = flowdeck[round]!;
          const p = f.phases;
          if (BASELINE_CLI)
            console.log(
              `  round ${round + 1}: baseline run ${baseline[round]!.seconds.toFixed(2)} s (cpu ${baseline[round]!.cpuSeconds.toFixed(2)} s): ratio curl / baseline ${(curl[round]! / baseline[round]!.seconds).toFixed(2)}x`,
            );
          console.log(
            `  round ${round + 1}: flowdeck run ${f.seconds.toFixed(2)} s (cpu ${f.cpuSeconds.toFixed(2)} s, peak RSS ${f.maxRssMb.toFixed(0)} MB); curl -o ${curl[round]!.toFixed(2)} s (cpu ${curlCpu[round]!.toFixed(2)} s); curl -o + sync ${curlSynced[round]!.toFixed(2)} s; ratio curl / flowdeck ${(curl[round]! / f.seconds).toFixed(2)}x`,
          );
          console.log(
            `           plain node, same guarantees (hash + two fsynced files, no Flowdeck) ${plainDurable[round]!.seconds.toFixed(2)} s (cpu ${plainDurable[round]!.cpuSeconds.toFixed(2)} s): ratio curl / plain ${(curl[round]! / plainDurable[round]!.seconds).toFixed(2)}x`,
          );
          console.log(
            `           flowdeck phases: start to submitted ${p.submitted.toFixed(2)} s, job ${(p.succeeded - p.submitted).toFixed(2)} s, library download (hashed, --out teed) ${(p.delivered - p.succeeded).toFixed(2)} s, exit ${(f.seconds - p.delivered).toFixed(2)} s`,
          );
        },
      );
    } finally {
      await cloud.stop();
    }
    const flowdeckSeconds = flowdeck.map((f) => f.seconds);
    const ratios = flowdeckSeconds.map((s, i) => curl[i]! / s);
    const figures = {
      flowdeckMedianS: median(flowdeckSeconds),
      curlMedianS: median(curl),
      curlSyncedMedianS: median(curlSynced),
      ratioMedian: median(ratios),
      ratioBest: Math.max(...ratios),
      ratioSyncedMedian: median(flowdeckSeconds.map((s, i) => curlSynced[i]! / s)),
      // What making its one file durable costs curl itself (no hash, no second file).
      curlDurableCeilingMedian: median(curl.map((c, i) => c / curlSynced[i]!)),
      peakRssMb: Math.max(...flowdeck.map((f) => f.maxRssMb)),
      flowdeckCpuMedianS: median(flowdeck.map((f) => f.cpuSeconds)),
      curlCpuMedianS: median(curlCpu),
      plainRatioMedian: median(plainDurable.map((f, i) => curl[i]! / f.seconds)),
      plainToFlowdeckMedian: median(flowdeckSeconds.map((s, i) => plainDurable[i]!.seconds / s)),
    };
    console.log(`whole \`flowdeck run --out\` of a 1 GiB output (cloud demo, 302 to a signed URL, library on), ${ROUNDS} alternating rounds:`);
    console.log(
      `  flowdeck run      median ${figures.flowdeckMedianS.toFixed(2)} s  (${(GiB / figures.flowdeckMedianS / 1e6).toFixed(0)} MB/s; cpu ${figures.flowdeckCpuMedianS.toFixed(2)} s)`,
    );
    console.log(
      `  curl -o           median ${figures.curlMedianS.toFixed(2)} s  (${(GiB / figures.curlMedianS / 1e6).toFixed(0)} MB/s; cpu ${figures.curlCpuMedianS.toFixed(2)} s, the demo server's not counted on either side)`,
    );
    console.log(
      `  curl -o + sync    median ${figures.curlSyncedMedianS.toFixed(2)} s: curl / (curl + sync) ${figures.curlDurableCeilingMedian.toFixed(2)}x, what making its one file durable costs curl (no hash, no second file)`,
    );
    console.log(
      `  ratio curl / flowdeck   median ${figures.ratioMedian.toFixed(2)}x, best ${figures.ratioBest.toFixed(2)}x  (to curl + sync: ${figures.ratioSyncedMedian.toFixed(2)}x; target >= 0.9x)`,
    );
    console.log(
      `  plain node client with the same guarantees (support/plain-durable-download.mjs: http.get, sha256, two write streams, fsync)  ratio curl / plain median ${figures.plainRatioMedian.toFixed(2)}x; plain / flowdeck ${figures.plainToFlowdeckMedian.toFixed(2)}x`,
    );
    console.log(`  flowdeck peak RSS       ${figures.peakRssMb.toFixed(0)} MB  (VmHWM of the CLI process; target < 200 MB)`);
    if (BASELINE_CLI) {
      const ratios = baseline.map((b, i) => curl[i]! / b.seconds);
      console.log(
        `  baseline ${BASELINE_CLI}: ratio curl / baseline median ${median(ratios).toFixed(2)}x (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}), cpu median ${median(baseline.map((b) => b.cpuSeconds)).toFixed(2)} s`,
      );
    }
    console.log(`  load average            before ${loadBefore}, after ${loadAverage()} (2 cores, shared)`);
    console.log(JSON.stringify(figures));
    return figures;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runVsCurlBench();
}
