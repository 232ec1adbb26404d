// Every command opens the data folder's store the same way: a damaged store file is moved aside
// and a fresh one started (see main/jobs/store-reset.ts); the command goes on and says so on stderr.
import { dataPaths } from '@main/config/data-dir';
import { Store } from '@main/store/store';
import { storeResetNotice } from '@main/store/store-reset';

export async function openCliStore(dataDir: string, warn: (line: string) => void): Promise<Store> {
  const store = await Store.open(dataPaths(dataDir).database);
  if (store.reset) warn(`warning: ${storeResetNotice(store.reset)}`);
  return store;
}
