// The connection indicator's state, kept fresh by `connection.state` events from main.
import type { ConnectionStateView } from '../../../../shared/ipc/contract';
import type { Api } from '../api';

export class ConnectionStore {
  current = $state<ConnectionStateView>({ profileId: null, state: 'offline', message: null });
  /** False until main has said anything: the indicator then says it is waiting, not "offline". */
  known = $state(false);

  attach(api: Api): () => void {
    return api.on('connection.state', (state) => {
      this.current = state;
      this.known = true;
    });
  }
}
