import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InterruptedError, NodeExecutionError, type RgbaImage } from '@main/demo/node-api';
import { PREVIEW_MAX, createDemoSamplerNode, denoisedFraction } from '@main/demo/nodes/demo-sampler';
import { createFakeContext, type FakeContext } from './fake-context';

let ctx: FakeContext;
beforeEach(async () => {
  ctx = await createFakeContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

const base = { prompt: 'a lighthouse at dusk, oil painting', seed: 42, steps: 4, width: 64, height: 48, cfg: 7, sampler_name: 'euler', delay_ms: 0 };

async function sample(inputs: Record<string, unknown>, context: FakeContext = ctx): Promise<RgbaImage> {
  const { outputs } = await createDemoSamplerNode().run(context, { ...base, ...inputs } as never);
  return outputs[0] as RgbaImage;
}

describe('DemoSampler', () => {
  it('outputs an image of the requested size, identical for the same prompt, seed, size and steps', async () => {
    const a = await sample({});
    const other = await createFakeContext();
    try {
      const b = await sample({}, other);
      expect(a.width).toBe(64);
      expect(a.height).toBe(48);
      expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(true);
    } finally {
      await other.cleanup();
    }
    expect(Buffer.from((await sample({ seed: 43 })).data).equals(Buffer.from(a.data))).toBe(false);
    expect(Buffer.from((await sample({ prompt: 'a desert at noon' })).data).equals(Buffer.from(a.data))).toBe(false);
    expect(Buffer.from((await sample({ steps: 5 })).data).equals(Buffer.from(a.data))).toBe(false);
  });

  it('reports progress, a preview per step and the step-1 text', async () => {
    await sample({ steps: 5, delay_ms: 30 });
    expect(ctx.progressCalls).toEqual([
      [1, 5],
      [2, 5],
      [3, 5],
      [4, 5],
      [5, 5],
    ]);
    expect(ctx.previews).toHaveLength(5);
    expect(ctx.texts).toEqual(['step 1 of 5']);
    expect(ctx.sleeps).toEqual([30, 30, 30, 30, 30]); // unscaled: the context's sleep applies timeScale
  });

  it('moves the previews from noise towards the output', async () => {
    const out = await sample({ steps: 6 });
    const distance = (p: RgbaImage) => {
      let d = 0;
      for (let i = 0; i < p.data.length; i += 4) d += Math.abs(p.data[i]! - out.data[i]!);
      return d;
    };
    const d = ctx.previews.map(distance);
    for (let i = 1; i < d.length; i++) expect(d[i]!).toBeLessThan(d[i - 1]!);
  });

  it('keeps previews within 512 px, with the output aspect', async () => {
    await sample({ steps: 1, width: 1024, height: 512 });
    const preview = ctx.previews[0]!;
    expect(Math.max(preview.width, preview.height)).toBe(PREVIEW_MAX);
    expect(preview.width / preview.height).toBe(2);
  });

  it('fails on purpose at fail_at_step, after reporting the earlier steps', async () => {
    const run = createDemoSamplerNode().run(ctx, { ...base, steps: 5, fail_at_step: 3 } as never);
    await expect(run).rejects.toBeInstanceOf(NodeExecutionError);
    await expect(createDemoSamplerNode().run(ctx, { ...base, steps: 5, fail_at_step: 3 } as never)).rejects.toMatchObject({
      exceptionType: 'RuntimeError',
      message: 'DemoSampler: deliberate failure at step 3',
    });
    expect(ctx.progressCalls.slice(0, 2)).toEqual([
      [1, 5],
      [2, 5],
    ]);
    expect(ctx.progressCalls.some(([v]) => v >= 3)).toBe(false);
    // A fail_at_step beyond the steps never fires.
    await expect(sample({ steps: 2, fail_at_step: 3 })).resolves.toBeTruthy();
  });

  it('stops when interrupted (sleep rejects)', async () => {
    ctx.interrupt();
    await expect(sample({ steps: 3, delay_ms: 10 })).rejects.toBeInstanceOf(InterruptedError);
    expect(ctx.progressCalls).toEqual([]);
  });

  it('accepts the largest seed as a bigint and the optional inputs by default', async () => {
    const { outputs } = await createDemoSamplerNode().run(ctx, {
      prompt: 'night sea',
      seed: 18446744073709551615n,
      steps: 1,
      width: 16,
      height: 16,
      cfg: 0,
      sampler_name: 'ddim',
    });
    expect((outputs[0] as RgbaImage).width).toBe(16);
    expect(ctx.sleeps).toEqual([120]); // delay_ms default
    await expect(sample({ seed: 18446744073709551616n })).rejects.toThrow(/from 0 to 18446744073709551615/);
    await expect(sample({ sampler_name: 'dpm_fast' })).rejects.toThrow(/one of euler, dpmpp_2m, ddim/);
  });

  it('reaches the picture at the last step with every sampler', () => {
    for (const s of ['euler', 'dpmpp_2m', 'ddim'] as const) {
      expect(denoisedFraction(s, 8, 8)).toBe(1);
      expect(denoisedFraction(s, 1, 8)).toBeGreaterThan(0);
    }
  });
});
