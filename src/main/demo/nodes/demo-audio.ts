// DemoAudio: synthesises a real WAV (16-bit PCM mono 22050 Hz sine with fades) as an audio output.
import type { DemoNode } from '../node-api';
import { DEMO_MODULE, buildDefinition, readNodeInputs } from './define';
import { floatInput } from './input-specs';
import { sineWav } from './wav';

const shape = {
  name: 'DemoAudio',
  displayName: 'Demo Audio',
  description: 'Saves a sine tone as a WAV file (16-bit PCM, mono, 22050 Hz).',
  category: 'Flowdeck demo/audio',
  pythonModule: DEMO_MODULE,
  required: {
    seconds: floatInput({ default: 1, min: 0.2, max: 10, step: 0.1 }),
    frequency: floatInput({ default: 440, min: 50, max: 4000, step: 1 }),
  },
  optional: {},
  outputs: [],
  outputNode: true,
};

export function createDemoAudioNode(): DemoNode {
  return {
    definition: buildDefinition(shape),
    async run(context, inputs) {
      const { seconds, frequency } = readNodeInputs(shape, inputs);
      context.checkInterrupted();
      const saved = await context.saveFile('audio/Flowdeck', 'wav', sineWav(seconds, frequency), 'output');
      return { outputs: [], ui: { audio: [saved] } };
    },
  };
}
