// Issue 25's upload target: a 512 MiB multipart upload through Flowdeck's client at least 0.9x
// `curl -F image=@file` to the same demo server's /api/upload/image, side by side: rounds that
// alternate which goes first, each upload in a process of its own (Flowdeck's: bench/support/
// upload-child.ts, timed from the request to the answer, after the client's discover(), as
// `flowdeck run` does; curl: the whole command under GNU time). Prints each round's wall and
// client CPU, the median ratio curl_time / flowdeck_time, and the uploading process's RSS growth
// (a file read whole into memory would add 512 MiB). The demo server runs in its own process on
// the same 2 cores, so the load average is printed beside the figures.
//   npx tsx bench/upload-vs-curl.ts [rounds] [MiB]
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { alternateRounds, inWorkDir, loadAverage, median } from './support/cli-bench';
import { writeIncompressibleFile } from './support/big-file';
import { curlUploadArgs, measureCommand, runJsonChild, startDemoChild } from './support/processes';

const ROUNDS = Math.max(1, Number(process.argv[2] ?? 5));
const MIB = Math.max(1, Number(process.argv[3] ?? 512));
const TARGET = 0.9;

interface Side {
  seconds: number;
  cpuSeconds: number;
}

export async function uploadVsCurlBench(): Promise<Record<string, number>> {
  execFileSync('curl', ['--version'], { stdio: 'ignore' });
  return inWorkDir('flowdeck-bench-upload-', async (work) => {
    const loadBefore = loadAverage();
    const file = join(work, 'upload.bin');
    writeIncompressibleFile(file, MIB * 2 ** 20);
    const demo = await startDemoChild('local');
    const ours: Side[] = [];
    const curl: Side[] = [];
    const growth: number[] = [];
    try {
      await alternateRounds(
        ROUNDS,
        async () => {
          const run = await runJsonChild<{ seconds: number; cpuSeconds: number; rssBeforeMb: number; maxRssMb: number }>('upload-child.ts', [demo.url, file]);
          ours.push(run);
          growth.push(run.maxRssMb - run.rssBeforeMb);
        },
        async () => {
          const run = await measureCommand('curl', curlUploadArgs(file, demo.url));
          curl.push(run);
        },
        (round) =>
          console.log(
            `  round ${round + 1}: flowdeck ${ours[round]!.seconds.toFixed(2)} s (cpu ${ours[round]!.cpuSeconds.toFixed(2)} s, RSS +${growth[round]!.toFixed(0)} MB), curl -F ${curl[round]!.seconds.toFixed(2)} s (cpu ${curl[round]!.cpuSeconds.toFixed(2)} s): ratio ${(curl[round]!.seconds / ours[round]!.seconds).toFixed(2)}x`,
          ),
      );
    } finally {
      await demo.stop();
    }
    const ratios = ours.map((o, i) => curl[i]!.seconds / o.seconds);
    const figures = {
      mib: MIB,
      flowdeckMedianS: median(ours.map((o) => o.seconds)),
      curlMedianS: median(curl.map((c) => c.seconds)),
      ratioMedian: median(ratios),
      flowdeckCpuMedianS: median(ours.map((o) => o.cpuSeconds)),
      curlCpuMedianS: median(curl.map((c) => c.cpuSeconds)),
      rssGrowthMaxMb: Math.max(...growth),
    };
    console.log(`upload of ${MIB} MiB, multipart to the local demo's /api/upload/image, ${ROUNDS} alternating rounds:`);
    console.log(
      `  flowdeck median ${figures.flowdeckMedianS.toFixed(2)} s (${((MIB * 2 ** 20) / figures.flowdeckMedianS / 1e6).toFixed(0)} MB/s), curl -F ${figures.curlMedianS.toFixed(2)} s (${((MIB * 2 ** 20) / figures.curlMedianS / 1e6).toFixed(0)} MB/s)`,
    );
    console.log(
      `  ratio curl / flowdeck median ${figures.ratioMedian.toFixed(2)}x (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}; target >= ${TARGET}x): ${figures.ratioMedian >= TARGET ? 'met' : 'NOT met'}`,
    );
    console.log(`  client cpu median: flowdeck ${figures.flowdeckCpuMedianS.toFixed(2)} s, curl ${figures.curlCpuMedianS.toFixed(2)} s`);
    console.log(
      `  peak RSS growth of the uploading process: at most ${figures.rssGrowthMaxMb.toFixed(0)} MB for the ${MIB} MiB file (a whole read would add at least the file's size)`,
    );
    console.log(`  load average before ${loadBefore}, after ${loadAverage()} (2 cores, shared)`);
    console.log(JSON.stringify(figures));
    return figures;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await uploadVsCurlBench();
}
