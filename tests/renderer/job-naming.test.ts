// How jobs are named and grouped (issue 21): parameters read from the submitted workflow (a
// 2^64-1 seed exactly, the prompt followed through the conditioning), names from the prompt's
// first words and the seed, repeated runs as one group with the running one first, durations
// that say waiting and running apart, and overall progress that moves with the running node's steps.
import { describe, expect, it } from 'vitest';
import { parseJsonExact, type JsonObject } from '@shared/json';
import { groupSummary, jobEntries } from '../../src/renderer/src/lib/jobs/job-groups';
import { firstWords, jobName, jobParams } from '../../src/renderer/src/lib/jobs/job-params';
import { overallProgress, waitAndRun } from '../../src/renderer/src/lib/jobs/job-words';
import { jobView } from '../support/job-view';

const EDITOR_STYLE = parseJsonExact(`{
  "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "sd_xl_base_1.0.safetensors"}},
  "5": {"class_type": "EmptyLatentImage", "inputs": {"width": 1024, "height": 768, "batch_size": 1}},
  "6": {"class_type": "CLIPTextEncode", "inputs": {"text": "a beautiful photo of a cat in a magical forest", "clip": ["4", 1]}},
  "7": {"class_type": "CLIPTextEncode", "inputs": {"text": "blurry", "clip": ["4", 1]}},
  "3": {"class_type": "KSampler", "inputs": {"seed": 18446744073709551615, "steps": 30, "cfg": 6.5, "sampler_name": "euler", "scheduler": "normal",
        "denoise": 1, "model": ["4", 0], "positive": ["6", 0], "negative": ["7", 0], "latent_image": ["5", 0]}}
}`) as JsonObject;

describe('job parameters', () => {
  it('reads prompt, exact seed, steps, size, model, sampler and cfg from an editor-style workflow', () => {
    expect(jobParams(EDITOR_STYLE)).toEqual({
      prompt: 'a beautiful photo of a cat in a magical forest',
      seed: '18446744073709551615',
      steps: '30',
      width: '1024',
      height: '768',
      model: 'sd_xl_base_1.0.safetensors',
      sampler: 'euler',
      cfg: '6.5',
    });
  });

  it('reads a sampler that takes its prompt directly, and nothing from no workflow', () => {
    const demo = { '3': { class_type: 'DemoSampler', inputs: { prompt: 'a lighthouse', seed: 42, steps: 8, width: 256, height: 256 } } } as JsonObject;
    expect(jobParams(demo)).toMatchObject({ prompt: 'a lighthouse', seed: '42', steps: '8', width: '256', height: '256', model: null });
    expect(jobParams(null).prompt).toBeNull();
  });

  it('names a job by its prompt and seed, else its workflow title', () => {
    expect(jobName('text-to-image.json', { prompt: 'a lighthouse at dusk', seed: '42' })).toBe('a lighthouse at dusk · seed 42');
    expect(jobName('portrait.app.json', { prompt: null, seed: null })).toBe('portrait');
    expect(firstWords('one two three four five six seven eight nine ten eleven twelve', 30)).toBe('one two three four five six…');
  });
});

const job = jobView;

describe('job groups', () => {
  it('gathers a repeated run into one group, puts the running entries first, and says how far it is', () => {
    const batch = { id: 'b', count: 4 };
    const list = [job('d', 'pending'), job('c', 'running'), job('b', 'succeeded'), job('a', 'succeeded'), job('x', 'succeeded')];
    const entries = jobEntries(list, (id) => (['a', 'b', 'c', 'd'].includes(id) ? batch : null));
    expect(entries.map((e) => (e.kind === 'job' ? e.job.promptId : `group:${e.jobs.map((j) => j.promptId).join('')}`))).toEqual(['group:dcba', 'x']);
    const lone = jobEntries([job('y', 'succeeded'), job('z', 'running')], () => null);
    expect(lone.map((e) => (e.kind === 'job' ? e.job.promptId : ''))).toEqual(['z', 'y']);
    expect(groupSummary(list.slice(0, 4), 4)).toBe('4 runs, 2 done');
    expect(groupSummary([job('a', 'failed'), job('b', 'succeeded')], 4)).toBe('4 runs, 1 done, 1 failed');
  });
});

describe('durations and progress', () => {
  it('says waiting and running apart', () => {
    expect(waitAndRun({ phase: 'succeeded', submittedAt: 0, startedAt: 12_000, finishedAt: 50_000 }, 60_000)).toBe('waited 12 s · ran 38 s');
    expect(waitAndRun({ phase: 'running', submittedAt: 0, startedAt: 2_000, finishedAt: null }, 9_000)).toBe('waited 2 s · running 7 s');
    expect(waitAndRun({ phase: 'pending', submittedAt: 0, startedAt: null, finishedAt: null }, 4_000)).toBe('waiting 4 s');
    expect(waitAndRun({ phase: 'succeeded', submittedAt: 0, finishedAt: 50_000 }, 60_000)).toBe('took 50 s');
  });

  it('moves overall progress with the running node steps, never 0 while steps advance', () => {
    const running = { phase: 'running' as const, nodesDone: 0, nodesTotal: 2, progress: { value: 5, max: 8 }, overall: 0 };
    const p = overallProgress(running);
    expect(p.share).toBeCloseTo(5 / 16);
    expect(p.text).toBe('31% · node 1 of 2');
    expect(overallProgress({ ...running, phase: 'succeeded' })).toEqual({ share: 1, text: '2 of 2 nodes' });
    expect(overallProgress({ ...running, progress: null }).text).toBe('0 of 2 nodes');
  });
});
