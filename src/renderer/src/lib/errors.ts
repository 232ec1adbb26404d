// Where a failed call should be shown: a rejected key sends the user to the key field, credits and
// subscription problems get their own explanation, a rejected workflow marks the form.
import { rejectionDetailsSchema, type RejectionDetails } from '@shared/ipc/contract';
import { CallError, messageOf } from './api';

export type RoutedError =
  | { kind: 'key'; message: string }
  | { kind: 'billing'; title: string; message: string }
  | { kind: 'rejected'; message: string; details: RejectionDetails | null }
  | { kind: 'plain'; message: string };

export function routeError(error: unknown): RoutedError {
  const message = messageOf(error);
  if (!(error instanceof CallError)) return { kind: 'plain', message };
  switch (error.code) {
    case 'unauthorized':
      return { kind: 'key', message };
    case 'insufficient_credits':
      return {
        kind: 'billing',
        title: 'Not enough credits',
        message: `${message} Running this workflow costs credits and the account's balance is too low: add credits on the platform's billing page, then run again.`,
      };
    case 'subscription_inactive':
      return {
        kind: 'billing',
        title: 'Subscription inactive',
        message: `${message} Running workflows on this service requires an active subscription. Renew it on the platform; trying again will not help until then.`,
      };
    case 'invalid_workflow': {
      const details = rejectionDetailsSchema.safeParse(error.details);
      return { kind: 'rejected', message, details: details.success ? details.data : null };
    }
    default:
      return { kind: 'plain', message };
  }
}
