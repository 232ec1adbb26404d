// Downloads and uploads through the real client, side by side with curl on the same URLs, in one run:
// - `view` download of a 1 GiB output: our client (/api/view -> 302 -> signed URL) vs `curl` on the
//   same signed URL; peak RSS growth of the downloading process.
// - upload of a large file: our client (multipart from fs.openAsBlob) vs `curl -F`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient } from '@main/service/client';
import { writeIncompressibleFile as writeFile } from './support/big-file';
import { curlUploadArgs, runJsonChild, startDemoChild, timeCommand } from './support/processes';
import { signedUrl } from './support/signed-url';

const GiB = 1024 ** 3;
const ROUNDS = 3;

export async function runTransferBench(): Promise<Record<string, number>> {
  const work = mkdtempSync(join(tmpdir(), 'flowdeck-bench-transfer-'));
  const figures: Record<string, number> = {};
  try {
    const big = join(work, 'big.bin');
    writeFile(big, GiB);
    const cloud = await startDemoChild('cloud', big);
    try {
      const key = cloud.apiKey!;
      const ref = cloud.ref!;
      const client = new ServiceClient({ kind: 'cloud', baseUrl: cloud.url }, { apiKey: () => key });
      let ours = Infinity;
      let curl = Infinity;
      let curlSynced = Infinity;
      let growth = 0;
      for (let round = 0; round < ROUNDS; round += 1) {
        const location = await signedUrl(cloud.url, key, ref);
        const target = join(work, 'curl.bin');
        curl = Math.min(curl, await timeCommand('curl', ['-s', '-f', '-o', target, location]));
        rmSync(target, { force: true });
        // Our client fsyncs the file before renaming it into place; this is curl with the same guarantee.
        curlSynced = Math.min(curlSynced, await timeCommand('sh', ['-c', 'curl -s -f -o "$1" "$2" && sync "$1"', 'sh', target, location]));
        rmSync(target, { force: true });
        // Throughput with the client warm in this process, as in the app.
        const start = process.hrtime.bigint();
        const result = await client.download(ref, work, { destName: 'ours.bin', overwrite: true });
        ours = Math.min(ours, Number(process.hrtime.bigint() - start) / 1e9);
        if (result.bytes !== GiB) throw new Error(`downloaded ${result.bytes} bytes, expected ${GiB}`);
        rmSync(result.path, { force: true });
      }
      // Peak memory: one download in a process of its own.
      const measured = await runJsonChild<{ seconds: number; bytes: number; rssBeforeMb: number; maxRssMb: number }>('download-child.ts', [
        cloud.url,
        key,
        JSON.stringify(ref),
      ]);
      growth = measured.maxRssMb - measured.rssBeforeMb;
      figures.downloadMBps = GiB / ours / 1e6;
      figures.curlDownloadMBps = GiB / curl / 1e6;
      figures.curlSyncedDownloadMBps = GiB / curlSynced / 1e6;
      figures.downloadRatio = curl / ours;
      figures.downloadRatioSynced = curlSynced / ours;
      figures.downloadRssGrowthMb = growth;
      console.log(`view download, 1 GiB via 302 to a signed URL (best of ${ROUNDS}):`);
      console.log(`  flowdeck client  ${figures.downloadMBps.toFixed(0).padStart(6)} MB/s  (/api/view + signed URL, fsync before rename)`);
      console.log(`  curl (same URL)  ${figures.curlDownloadMBps.toFixed(0).padStart(6)} MB/s`);
      console.log(`  curl + sync      ${figures.curlSyncedDownloadMBps.toFixed(0).padStart(6)} MB/s`);
      console.log(`  ratio to curl    ${figures.downloadRatio.toFixed(2)}x   (to curl + sync: ${figures.downloadRatioSynced.toFixed(2)}x; target >= 0.9x)`);
      console.log(`  peak RSS growth  ${growth.toFixed(1)} MB  (target < 64 MB)`);
    } finally {
      await cloud.stop();
    }

    const uploadSize = 512 * 1024 ** 2;
    const upload = join(work, 'upload.bin');
    writeFile(upload, uploadSize);
    rmSync(big, { force: true });
    const local = await startDemoChild('local');
    try {
      let ours = Infinity;
      let curl = Infinity;
      let rss = 0;
      // Throughput with the client warm in this process (as in the app, where it runs for hours),
      // alternating with curl; peak memory from one upload in a process of its own.
      const client = new ServiceClient({ kind: 'local', baseUrl: local.url }, { apiKey: () => null });
      // As `flowdeck run` does before an upload: the server's own max_upload_size (the bench's demo
      // allows 8 GiB) replaces the local kind's 100 MiB default, which would refuse this file.
      await client.discover();
      for (let round = 0; round < ROUNDS; round += 1) {
        curl = Math.min(curl, await timeCommand('curl', curlUploadArgs(upload, local.url)));
        const start = process.hrtime.bigint();
        await client.uploadImage(upload, { type: 'input', overwrite: true });
        ours = Math.min(ours, Number(process.hrtime.bigint() - start) / 1e9);
      }
      rss = (await runJsonChild<{ seconds: number; maxRssMb: number }>('upload-child.ts', [local.url, upload])).maxRssMb;
      figures.uploadMBps = uploadSize / ours / 1e6;
      figures.curlUploadMBps = uploadSize / curl / 1e6;
      figures.uploadRatio = curl / ours;
      console.log(`upload, 512 MiB multipart (best of ${ROUNDS}):`);
      console.log(
        `  flowdeck client  ${figures.uploadMBps.toFixed(0).padStart(6)} MB/s  (peak RSS of an uploading process ${rss.toFixed(0)} MB, tsx included)`,
      );
      console.log(`  curl -F          ${figures.curlUploadMBps.toFixed(0).padStart(6)} MB/s`);
      console.log(`  ratio to curl    ${figures.uploadRatio.toFixed(2)}x   (target >= 0.9x)`);
    } finally {
      await local.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  execFileSync('curl', ['--version'], { stdio: 'ignore' });
  await runTransferBench();
}
