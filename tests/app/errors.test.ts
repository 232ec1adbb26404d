// How failures cross the boundary: typed codes, rejection details, and no key in any text.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ipcErrorSchema } from '@shared/ipc/contract';
import { AppFailure, toIpcError } from '@main/app/errors';
import { KeyVault } from '@main/app/keys';
import { SecretStoreUnavailableError, SessionSecretStore } from '@main/config/secrets';
import { ServiceError, WorkflowRejectedError } from '@main/service/errors';

const KEY = 'sk-live-0123456789abcdef0123';

describe('toIpcError', () => {
  const vault = new KeyVault(new SessionSecretStore());
  const redact = (t: string): string => vault.redact(t);

  it('maps service failures to contract codes', () => {
    const cases: Array<[ServiceError['kind'], string]> = [
      ['unauthorized', 'unauthorized'],
      ['insufficient_credits', 'insufficient_credits'],
      ['subscription_inactive', 'subscription_inactive'],
      ['network', 'network'],
      ['server', 'server'],
      ['not_found', 'not_found'],
      ['protocol', 'server'],
    ];
    for (const [kind, code] of cases) expect(toIpcError(new ServiceError(kind, 'x'), redact).code).toBe(code);
  });

  it('names the failing node and input of a rejected workflow', () => {
    const error = new WorkflowRejectedError(
      'prompt_outputs_failed_validation',
      'Prompt outputs failed validation',
      [{ nodeId: '3', classType: 'KSampler', inputName: 'seed', type: 'value_bigger_than_max', message: 'Value bigger than max', details: 'seed 5 > 4' }],
      400,
    );
    const out = toIpcError(error, redact);
    expect(out.code).toBe('invalid_workflow');
    expect(out.details).toEqual({
      errorType: 'prompt_outputs_failed_validation',
      nodeErrors: [{ nodeId: '3', classType: 'KSampler', inputName: 'seed', message: 'Value bigger than max: seed 5 > 4' }],
    });
  });

  it('turns a missing keychain into keychain_unavailable with the fix, offering session-only', () => {
    const out = toIpcError(new SecretStoreUnavailableError('no Secret Service is running on D-Bus'), redact);
    expect(out).toMatchObject({ code: 'keychain_unavailable', details: { canUseSessionOnly: true } });
    expect(out.message).toMatch(/gnome-keyring|Secret Service/);
  });

  it('removes every key the vault has seen from messages and details, even of unexpected errors', async () => {
    await vault.save('p1', KEY, true);
    await vault.remove('p1');
    const unexpected = toIpcError(new Error(`request to https://x/?token=${KEY} failed`), redact);
    expect(unexpected.code).toBe('internal');
    expect(unexpected.message).not.toContain(KEY);
    expect(unexpected.message).toContain('[redacted]');
    const detailed = toIpcError(new AppFailure('server', `bad ${KEY}`, { nested: [{ text: `also ${KEY}` }] }), redact);
    expect(JSON.stringify(detailed)).not.toContain(KEY);
    expect(() => ipcErrorSchema.parse(detailed)).not.toThrow();
  });

  it('reports validation failures as invalid_input with the fields', () => {
    const parsed = z.object({ id: z.string() }).safeParse({ id: 1 });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(toIpcError(parsed.error, redact)).toMatchObject({ code: 'invalid_input', details: { issues: [{ path: 'id' }] } });
  });
});
