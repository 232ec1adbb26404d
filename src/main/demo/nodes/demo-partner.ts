// DemoPartnerNode: stands in for a partner ("API") node that calls an external AI service with the
// user's platform key. It is marked `api_node: true` and needs the key in
// extra_data.api_key_comfy_org; when the account has a key, the two must match. The key is never
// put into an error message.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { DemoNode } from '../node-api';
import { NodeExecutionError } from '../node-api';
import { DEMO_MODULE, buildDefinition, readNodeInputs } from './define';
import { intInput, seedInput, stringInput } from './input-specs';
import { buildScene, renderScene } from './procedural';

export const PARTNER_IMAGE_SIZE = 384;

const shape = {
  name: 'DemoPartnerNode',
  displayName: 'Demo Partner Node (API)',
  description: 'Pretends to call a partner AI service; needs the platform API key in extra_data.api_key_comfy_org.',
  category: 'api node/image/Flowdeck demo',
  pythonModule: DEMO_MODULE,
  required: {
    prompt: stringInput({ default: 'a red fox in the snow', multiline: true }),
  },
  optional: {
    seed: seedInput(),
    delay_ms: intInput({ default: 200, min: 0, max: 10000, tooltip: 'Simulated time of the remote call.' }),
  },
  // Real partner nodes also declare hidden api_key_comfy_org / auth_token_comfy_org inputs. Not
  // here: the node reads the key from context.extraData, and a key passed as an input could end
  // up in an execution_error's current_inputs.
  hidden: { unique_id: 'UNIQUE_ID' },
  outputs: [{ type: 'IMAGE' }],
  outputNode: false,
  apiNode: true,
};

function sameSecret(a: string, b: string): boolean {
  // Compare digests so neither the length nor the content leaks through timing.
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

/** Why the key is refused, or null when it is acceptable. */
export function partnerKeyProblem(extraData: Record<string, unknown>, accountKey: string | null): string | null {
  const given = extraData.api_key_comfy_org;
  if (typeof given !== 'string' || given === '') return 'none was sent with this job';
  if (accountKey !== null && !sameSecret(given, accountKey)) return 'the key sent does not match this account';
  return null;
}

export function createDemoPartnerNode(): DemoNode {
  return {
    definition: buildDefinition(shape),
    async run(context, inputs) {
      const { prompt, seed, delay_ms } = readNodeInputs(shape, inputs);
      const problem = partnerKeyProblem(context.extraData, context.accountKey);
      if (problem !== null) {
        throw new NodeExecutionError(
          'Unauthorized',
          `This partner node needs your platform API key in extra_data.api_key_comfy_org (the same key as X-API-Key), but ${problem}. Set your API key and run again.`,
        );
      }
      context.text('Waiting for the partner service…');
      if (delay_ms > 0) await context.sleep(delay_ms);
      context.progress(1, 1);
      const image = renderScene(buildScene(prompt, seed, 9, 'partner'), PARTNER_IMAGE_SIZE, PARTNER_IMAGE_SIZE);
      return { outputs: [image] };
    },
  };
}
