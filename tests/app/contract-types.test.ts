// The contract is complete: every call name has schemas, every event has a payload schema, the
// runtime name lists equal the schema keys, and the app core provides a handler for every call.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  calls,
  events,
  type CallHandlers,
  type CallInput,
  type CallName,
  type CallResult,
  type EventName,
  type EventPayload,
  type FlowdeckApi,
  type Envelope,
} from '@shared/ipc/contract';
import { CALL_NAMES, EVENT_NAMES } from '@shared/ipc/names';
import type { AppCore } from '@main/app/core';

describe('IPC contract', () => {
  it('declares schemas for exactly the listed calls and events', () => {
    expect(Object.keys(calls).sort()).toEqual([...CALL_NAMES].sort());
    expect(Object.keys(events).sort()).toEqual([...EVENT_NAMES].sort());
    expectTypeOf<keyof typeof calls>().toEqualTypeOf<CallName>();
    expectTypeOf<keyof typeof events>().toEqualTypeOf<EventName>();
  });

  it('the app core has a handler for every call, typed by the contract', () => {
    expectTypeOf<AppCore['handlers']>().toEqualTypeOf<CallHandlers>();
    // Each handler's result is the contract's result for that name.
    expectTypeOf<ReturnType<CallHandlers['profiles.list']>>().toEqualTypeOf<Promise<CallResult<'profiles.list'>>>();
    expectTypeOf<keyof CallHandlers>().toEqualTypeOf<CallName>();
  });

  it('window.flowdeck is typed from the contract', () => {
    expectTypeOf<FlowdeckApi['invoke']>().toBeFunction();
    const _invokeList = (api: FlowdeckApi) => api.invoke('profiles.list');
    type ListAnswer = Awaited<ReturnType<typeof _invokeList>>;
    expectTypeOf<ListAnswer>().toEqualTypeOf<Envelope<CallResult<'profiles.list'>>>();
    expectTypeOf<CallInput<'run.submit'>>().toHaveProperty('workflowJson');
    expectTypeOf<EventPayload<'job.preview'>['bytes']>().toEqualTypeOf<Uint8Array>();
  });

  it('rejects a handler map with a call missing (compile-time)', () => {
    // @ts-expect-error a map without "renderer.ready" is not CallHandlers
    const incomplete: CallHandlers = {} as Omit<CallHandlers, 'renderer.ready'>;
    expect(incomplete).toBeDefined();
  });
});
