// The words and the one action for each state the active server can be in. One function, so the
// status bar, the indicator and the Servers view never disagree.
import type { ConnectionProblem, ConnectionStateView } from '@shared/ipc/contract';

export type Health =
  | 'core-lost'
  | 'waiting'
  | 'no-server'
  | 'connecting'
  | 'unreachable'
  | 'not-workflow-server'
  | 'no-key'
  | 'key-rejected'
  | 'subscription-inactive'
  | 'no-credits'
  | 'reconnecting'
  | 'polling'
  | 'connected';

/** What the user can do about it: go to a view (by its hash) or reload the page. */
export type HealthAction = { label: string; kind: 'servers' | 'key' | 'reload' } | null;

export interface HealthView {
  health: Health;
  /** Short words for the indicator ("Key rejected"). */
  label: string;
  /** One sentence: what it means and what to do. */
  detail: string;
  tone: 'ok' | 'busy' | 'warning' | 'error';
  action: HealthAction;
}

const PROBLEMS: Record<ConnectionProblem, Omit<HealthView, 'detail'> & { detail: string }> = {
  unreachable: {
    health: 'unreachable',
    label: 'Unreachable',
    tone: 'error',
    detail: 'The server does not answer. Check that it runs and that its address is right.',
    action: { label: 'Check server', kind: 'servers' },
  },
  not_workflow_server: {
    health: 'not-workflow-server',
    label: 'Not a workflow server',
    tone: 'error',
    detail: 'Something answers at this address, but it is not a workflow server. Check the address (and its port).',
    action: { label: 'Edit address', kind: 'servers' },
  },
  no_key: {
    health: 'no-key',
    label: 'No API key',
    tone: 'warning',
    detail: 'This server needs an API key before it can run workflows.',
    action: { label: 'Set API key', kind: 'key' },
  },
  key_rejected: {
    health: 'key-rejected',
    label: 'Key rejected',
    tone: 'error',
    detail: 'The server did not accept the API key. Paste a valid key.',
    action: { label: 'Set API key', kind: 'key' },
  },
  subscription_inactive: {
    health: 'subscription-inactive',
    label: 'Subscription inactive',
    tone: 'error',
    detail: "The account's subscription is not active: renew it on the platform, then run again.",
    action: { label: 'Open Servers', kind: 'servers' },
  },
  no_credits: {
    health: 'no-credits',
    label: 'No credits',
    tone: 'error',
    detail: "The account's credits are used up: add credits on the platform, then run again.",
    action: { label: 'Open Servers', kind: 'servers' },
  },
};

export function healthOf(input: { coreLost: boolean; known: boolean; hasServer: boolean; state: ConnectionStateView }): HealthView {
  if (input.coreLost) {
    return {
      health: 'core-lost',
      label: 'Core lost',
      tone: 'error',
      detail: "Disconnected from Flowdeck's core: nothing on this page is up to date. Reload once it runs again.",
      action: { label: 'Reload', kind: 'reload' },
    };
  }
  if (!input.known) return { health: 'waiting', label: 'Starting…', tone: 'busy', detail: 'Waiting for the app to report the connection.', action: null };
  if (!input.hasServer || input.state.profileId === null) {
    return {
      health: 'no-server',
      label: 'No server',
      tone: 'warning',
      detail: 'No server is active. Add one, or choose one in Servers.',
      action: { label: 'Choose server', kind: 'servers' },
    };
  }
  const problem = input.state.problem ?? null;
  // A known problem outranks the socket's state (the socket can be up while runs fail), except
  // an old "unreachable" once the live connection is up again.
  const live = input.state.state === 'connected' || input.state.state === 'polling';
  if (problem && !(problem === 'unreachable' && live)) return PROBLEMS[problem];
  switch (input.state.state) {
    case 'connecting':
      return { health: 'connecting', label: 'Connecting…', tone: 'busy', detail: 'Connecting to the server.', action: null };
    case 'reconnecting':
      return {
        health: 'reconnecting',
        label: 'Reconnecting…',
        tone: 'busy',
        detail: input.state.message ?? 'The live connection dropped; reconnecting.',
        action: null,
      };
    case 'polling':
      return {
        health: 'polling',
        label: 'Connected · polling',
        tone: 'warning',
        detail: input.state.message ?? 'The live connection went quiet; jobs are checked by polling.',
        action: null,
      };
    case 'connected':
      return { health: 'connected', label: 'Connected', tone: 'ok', detail: 'The server answers and runs workflows.', action: null };
    case 'offline':
      return { ...PROBLEMS.unreachable, detail: input.state.message ?? PROBLEMS.unreachable.detail };
  }
}
