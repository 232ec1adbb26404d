// The desk's words that are computed: the window title, the library's delete message, and the
// connection state's words and action for each state.
import { describe, expect, it } from 'vitest';
import { deleteMessage } from '../../src/renderer/src/lib/library/delete-message';
import { healthOf } from '../../src/renderer/src/lib/ui/connection-health';
import { meanProgress, windowTitle } from '../../src/renderer/src/lib/ui/title';
import type { ConnectionProblem } from '@shared/ipc/contract';

describe('window title', () => {
  it('carries running jobs and their progress, else pending ones, else only the name', () => {
    expect(windowTitle({ running: 3, pending: 2, progress: 0.426 })).toBe('3 running · 42% — Flowdeck');
    expect(windowTitle({ running: 1, pending: 0, progress: null })).toBe('1 running — Flowdeck');
    expect(windowTitle({ running: 0, pending: 2, progress: null })).toBe('2 pending — Flowdeck');
    expect(windowTitle({ running: 0, pending: 0, progress: 0.5 })).toBe('Flowdeck');
    expect(meanProgress([0.2, null, 0.6])).toBeCloseTo(0.4);
    expect(meanProgress([null])).toBeNull();
  });
});

describe('library delete message', () => {
  it('says a shared file stayed instead of claiming it went to the trash', () => {
    expect(deleteMessage(1, 0)).toBe('Moved 1 output to the trash.');
    expect(deleteMessage(1, 1)).toBe('Removed 1 output from the library; its file stays, because another library item uses the same file.');
    expect(deleteMessage(3, 1)).toMatch(/^Moved 2 outputs to the trash\. Removed 1 output from the library only/);
  });
});

describe('connection health', () => {
  const state = (s: 'connected' | 'offline' | 'connecting', problem: ConnectionProblem | null = null) => ({ profileId: 'p', state: s, message: null, problem });
  it('gives each state its own words and action', () => {
    const seen = new Map<string, string>();
    const cases: [ReturnType<typeof state>, string, string | null][] = [
      [state('offline'), 'Unreachable', 'servers'],
      [state('offline', 'not_workflow_server'), 'Not a workflow server', 'servers'],
      [state('connected', 'no_key'), 'No API key', 'key'],
      [state('connected', 'key_rejected'), 'Key rejected', 'key'],
      [state('connected', 'subscription_inactive'), 'Subscription inactive', 'servers'],
      [state('connected', 'no_credits'), 'No credits', 'servers'],
      [state('connected'), 'Connected', null],
    ];
    for (const [s, label, action] of cases) {
      const view = healthOf({ coreLost: false, known: true, hasServer: true, state: s });
      expect(view.label).toBe(label);
      expect(view.action?.kind ?? null).toBe(action);
      seen.set(view.detail, label);
    }
    // Seven states, seven different explanations.
    expect(seen.size).toBe(7);
  });

  it('never says Connected once the core is gone or while a stale unreachable outlives a live socket', () => {
    const lost = healthOf({ coreLost: true, known: true, hasServer: true, state: state('connected') });
    expect(`${lost.label} ${lost.detail}`).not.toMatch(/Connected/);
    expect(lost.action?.kind).toBe('reload');
    expect(healthOf({ coreLost: false, known: true, hasServer: true, state: state('connected', 'unreachable') }).label).toBe('Connected');
    expect(healthOf({ coreLost: false, known: true, hasServer: false, state: { ...state('offline'), profileId: null } }).label).toBe('No server');
  });
});
