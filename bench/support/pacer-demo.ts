// A demo service (cloud flavour) whose node library gains BenchPacer: a node that sends previews
// and progress events at exact rates for a set time, so bench/app-cost.ts can offer the client
// "N previews and M progress events per second" without a sampler's own pacing in the way. The
// preview pictures are 512x512, rendered once and JPEG-encoded once: the service's encoder is
// wrapped with a cache keyed by the picture's memory, because encoding 30 frames a second in
// JavaScript starved the demo on this shared 2-core machine (frames came in bursts, status polls
// timed out), which measured the demo, not the client.
import { DemoService, type DemoServiceOptions } from '../../src/main/demo';
import { createNodeLibrary } from '@main/demo/nodes';
import type { RgbaImage } from '@main/demo/node-api';
import jpeg from 'jpeg-js';
import { gradientRgba } from '../preview-fake-server';

const encodeOnce = new WeakMap<ArrayBufferLike, ReturnType<typeof jpeg.encode>>();
const encode = jpeg.encode.bind(jpeg);
// The same module object the demo's job emitter calls encode on.
jpeg.encode = (image, quality) => {
  const key = (image.data as Uint8Array).buffer;
  const known = encodeOnce.get(key);
  if (known) return known;
  const encoded = encode(image, quality);
  encodeOnce.set(key, encoded);
  return encoded;
};

export const PACER_CLASS = 'BenchPacer';

/** The service, not started. Its other nodes are the usual demo library. */
export function pacerDemo(options: Partial<DemoServiceOptions>): DemoService {
  const nodes = createNodeLibrary({ listInputFiles: () => [] });
  const pictures: RgbaImage[] = [0, 1, 2, 3].map((k) => ({ width: 512, height: 512, data: gradientRgba(k) }));
  const int = (dflt: number, max: number): [string, Record<string, number>] => ['INT', { default: dflt, min: 0, max }];
  nodes.set(PACER_CLASS, {
    definition: {
      input: { required: { seconds: ['FLOAT', { default: 60, min: 0, max: 3600, step: 0.01 }], previews_per_s: int(2, 120), progress_per_s: int(2, 240) } },
      input_order: { required: ['seconds', 'previews_per_s', 'progress_per_s'] },
      output: [],
      output_is_list: [],
      output_name: [],
      name: PACER_CLASS,
      display_name: 'Bench Pacer',
      description: 'Sends previews and progress at fixed rates for a set time (benchmarks only).',
      python_module: 'custom_nodes.flowdeck_bench',
      category: 'Flowdeck demo/testing',
      output_node: true,
    },
    async run(context, inputs) {
      const seconds = Number(inputs.seconds);
      const previewsPerS = Number(inputs.previews_per_s);
      const progressPerS = Number(inputs.progress_per_s);
      // One tick per progress event; a preview on the ticks that fall due.
      const ticks = Math.max(1, Math.round(seconds * Math.max(progressPerS, previewsPerS)));
      const tickMs = (seconds * 1000) / ticks;
      const start = performance.now();
      let previews = 0;
      for (let tick = 1; tick <= ticks; tick += 1) {
        context.checkInterrupted();
        const due = start + tick * tickMs - performance.now();
        if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
        if (
          progressPerS > 0 &&
          Math.floor((tick * progressPerS) / Math.max(progressPerS, previewsPerS)) >
            Math.floor(((tick - 1) * progressPerS) / Math.max(progressPerS, previewsPerS))
        ) {
          context.progress(Math.floor((tick * progressPerS) / Math.max(progressPerS, previewsPerS)), Math.round(seconds * progressPerS));
        }
        const previewsDue = Math.floor((tick * previewsPerS) / Math.max(progressPerS, previewsPerS));
        if (previewsDue > previews) {
          previews = previewsDue;
          context.preview(pictures[previews % pictures.length]!);
        }
      }
      return { outputs: [] };
    },
  });
  return new DemoService({ ...options, flavour: 'cloud', nodes });
}
