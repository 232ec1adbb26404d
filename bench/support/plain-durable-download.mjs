// A plain Node client for bench/run-vs-curl.ts that gives a 1 GiB output the guarantees
// `flowdeck run --out` gives it, written as one would at first, with no Flowdeck code: one GET of
// the signed URL, the sha256 of the bytes (the library's identity of the file), and two files (the
// library's and the --out copy; ext4 has no reflink) written from the one read through write
// streams, then fsynced. No journal, no job, no start-up of a real client. It shows what those
// guarantees cost done plainly (page cache, then a long fsync) beside curl, which keeps none.
//   node floor-download.mjs URL FILE_A FILE_B
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { get } from 'node:http';

const [url, a, b] = process.argv.slice(2);
const hash = createHash('sha256');
const files = [createWriteStream(a, { flags: 'wx' }), createWriteStream(b, { flags: 'wx' })];
get(url, (response) => {
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
  response.on('data', (chunk) => {
    hash.update(chunk);
    let full = false;
    for (const file of files) if (!file.write(chunk)) full = true;
    if (full) {
      response.pause();
      let waiting = files.filter((f) => f.writableNeedDrain).length;
      for (const file of files.filter((f) => f.writableNeedDrain)) file.once('drain', () => --waiting === 0 && response.resume());
    }
  });
  response.on('end', async () => {
    await Promise.all(files.map((file) => new Promise((done) => file.end(done))));
    const { open } = await import('node:fs/promises');
    await Promise.all(
      [a, b].map(async (path) => {
        const handle = await open(path, 'r+');
        await handle.sync();
        await handle.close();
      }),
    );
    process.stdout.write(`${JSON.stringify({ sha256: hash.digest('hex') })}\n`);
  });
});
