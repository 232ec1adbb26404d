// The connection to the active server, kept fresh by `connection.state` events from main, and
// (browser harness) whether the page still reaches Flowdeck's core at all.
import type { ConnectionStateView } from '@shared/ipc/contract';
import { CORE_LINK_EVENT } from '@shared/ipc/names';
import type { Api } from '../api';

export class ConnectionStore {
  current = $state<ConnectionStateView>({ profileId: null, state: 'offline', message: null });
  /** False until main has said anything: the indicator then says it is waiting, not "offline". */
  known = $state(false);
  /** The page lost its core (harness only: the core process is gone); nothing shown is current. */
  coreLost = $state(false);

  attach(api: Api): () => void {
    const off = api.on('connection.state', (state) => {
      this.current = state;
      this.known = true;
    });
    const onLink = (event: Event): void => {
      const up = (event as CustomEvent<{ up?: unknown }>).detail?.up;
      if (typeof up === 'boolean') this.coreLost = !up;
    };
    window.addEventListener(CORE_LINK_EVENT, onLink);
    return () => {
      off();
      window.removeEventListener(CORE_LINK_EVENT, onLink);
    };
  }
}
