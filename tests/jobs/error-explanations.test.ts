import { describe, expect, it } from 'vitest';
import { explainError, toJobError } from '@main/jobs/error-explanations';

const CLOUD_TYPES = [
  'ValidationError',
  'ModelDownloadError',
  'ImageDownloadError',
  'OOMError',
  'PanicError',
  'ServiceError',
  'WebSocketError',
  'DispatcherError',
  'InsufficientFundsError',
  'InactiveSubscriptionError',
];

describe('explainError', () => {
  const generic = explainError('SomethingNobodyHeardOf');

  it('has a specific explanation for every cloud exception type', () => {
    const texts = CLOUD_TYPES.map((t) => explainError(t));
    for (const text of texts) expect(text).not.toBe(generic);
    expect(explainError('InactiveSubscriptionError')).toMatch(/subscription/i);
    expect(explainError('InsufficientFundsError')).toMatch(/credits/i);
    expect(explainError('ImageDownloadError')).toMatch(/URL/);
  });

  it('knows common local Python exceptions, dotted or not', () => {
    for (const name of ['RuntimeError', 'ExecutionBlocked', 'InterruptedError', 'ValueError', 'FileNotFoundError', 'ModuleNotFoundError']) {
      expect(explainError(name)).not.toBe(generic);
    }
    expect(explainError('torch.OutOfMemoryError')).toMatch(/GPU ran out of memory/);
    expect(explainError('torch.cuda.OutOfMemoryError')).toMatch(/GPU ran out of memory/);
    expect(explainError('comfy.model_management.InterruptProcessingException')).toMatch(/interrupted/);
    expect(explainError('requests.exceptions.ConnectTimeout')).toMatch(/waited too long/);
  });

  it('falls back to a generic explanation', () => {
    expect(generic).toMatch(/failed on the server/);
    expect(explainError(null)).toBe(generic);
    expect(explainError('')).toBe(generic);
  });

  it('builds the error info with a message even when the server sent none', () => {
    expect(toJobError({ exceptionType: 'PanicError', message: '' })).toMatchObject({
      exceptionType: 'PanicError',
      message: 'PanicError (the server gave no message)',
      nodeId: null,
      traceback: [],
    });
    expect(toJobError({ exceptionType: ' ', message: null }).exceptionType).toBeNull();
  });
});
