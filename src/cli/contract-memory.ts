// Which contract (v1, or Comfy API v2) the last `flowdeck run` found at each server address, kept
// in the data folder (server-contracts.json). Only a hint: discovery still asks the server every
// time (v2/discover.ts), but when the last run found v2 it asks its two questions at once instead
// of in turn, saving a round trip per run; a server that changed is found out as before. The file
// is read bounded and validated (it is on disk, so untrusted); a bad one is ignored, and it is
// written (atomically, not fsynced: losing it costs one round trip) only when a finding changes.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomically } from '@main/files/publish';

const FILE = 'server-contracts.json';
/** Larger than any honest file (ADDRESSES_KEPT short entries): not read. */
const MAX_FILE_BYTES = 64 * 1024;
/** Addresses remembered; the oldest finding goes first. */
const ADDRESSES_KEPT = 200;

const memorySchema = z.record(z.string(), z.enum(['v1', 'v2']));
type Contract = 'v1' | 'v2';

function readAll(dataDir: string): Map<string, Contract> {
  const path = join(dataDir, FILE);
  try {
    if (statSync(path).size > MAX_FILE_BYTES) return new Map();
    const parsed = memorySchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? new Map(Object.entries(parsed.data)) : new Map();
  } catch {
    return new Map();
  }
}

/** What the last run found at `baseUrl`; undefined when nothing (or nothing readable) is kept. */
export function lastContractAt(dataDir: string, baseUrl: string): Contract | undefined {
  return readAll(dataDir).get(baseUrl);
}

/** Keeps what discovery found at `baseUrl` for the next run; a failure to write only costs that run a round trip. */
export async function rememberContract(dataDir: string, baseUrl: string, contract: Contract): Promise<void> {
  const memory = readAll(dataDir);
  if (memory.get(baseUrl) === contract) return;
  memory.delete(baseUrl);
  memory.set(baseUrl, contract);
  while (memory.size > ADDRESSES_KEPT) memory.delete(memory.keys().next().value as string);
  await writeFileAtomically(join(dataDir, FILE), JSON.stringify(Object.fromEntries(memory))).catch(() => undefined);
}
