// What job cards say (state words, durations, progress captions, filters), long names shortened
// in the middle, the viewer's zoom maths and its previous/next stepping.
import { describe, expect, it } from 'vitest';
import { cancelledReason, formatDuration, matchesState, progressCaption, stateWord } from '../../src/renderer/src/lib/jobs/job-words';
import { middleEllipsis } from '../../src/renderer/src/lib/library/middle-ellipsis';
import { stepIndex } from '../../src/renderer/src/lib/viewer/viewer.svelte';
import { fitScale, MAX_SCALE, zoomAbout } from '../../src/renderer/src/lib/viewer/zoom';

describe('job words', () => {
  it('says the state plainly; cancelled only when someone here asked to stop the job', () => {
    expect(stateWord({ phase: 'succeeded' }, false)).toBe('done');
    expect(stateWord({ phase: 'pending' }, false)).toBe('waiting in the queue');
    expect(stateWord({ phase: 'cancelled' }, true)).toBe('cancelled');
    expect(stateWord({ phase: 'cancelled' }, false)).toBe('stopped');
    expect(cancelledReason(false)).toMatch(/shut down/);
    expect(cancelledReason(false)).not.toMatch(/cancelled\.$/);
  });

  it('formats durations', () => {
    expect(formatDuration(400)).toBe('0 s');
    expect(formatDuration(12_400)).toBe('12 s');
    expect(formatDuration(184_000)).toBe('3 min 04 s');
    expect(formatDuration(3_720_000)).toBe('1 h 02 min');
  });

  it('drops a progress caption that would contradict the step bar', () => {
    const running = { phase: 'running' as const, progress: { value: 7, max: 20 } };
    expect(progressCaption({ ...running, progressText: 'step 1 of 20' })).toBeNull();
    expect(progressCaption({ ...running, progressText: 'Sampling 1/20' })).toBeNull();
    expect(progressCaption({ ...running, progressText: '5%' })).toBeNull();
    expect(progressCaption({ ...running, progressText: 'Loading the model' })).toBe('Loading the model');
    expect(progressCaption({ ...running, progress: null, progressText: 'step 1 of 20' })).toBe('step 1 of 20');
    expect(progressCaption({ phase: 'succeeded', progress: null, progressText: 'Loading' })).toBeNull();
  });

  it('filters by state', () => {
    expect(matchesState({ phase: 'running' }, 'active')).toBe(true);
    expect(matchesState({ phase: 'succeeded' }, 'active')).toBe(false);
    expect(matchesState({ phase: 'cancelled' }, 'failed')).toBe(true);
    expect(matchesState({ phase: 'succeeded' }, 'finished')).toBe(true);
  });
});

describe('middleEllipsis', () => {
  it('keeps the start and the end of a long name, and short names whole', () => {
    expect(middleEllipsis('Flowdeck_00012_.png', 24)).toBe('Flowdeck_00012_.png');
    const cut = middleEllipsis('a_very_long_workflow_output_name_00012_.png', 20);
    expect([...cut]).toHaveLength(20);
    expect(cut).toBe('a_very_lon…0012_.png');
    expect(cut).toContain('…');
  });

  it('never splits an emoji', () => {
    const cut = middleEllipsis('🌅🌅🌅🌅🌅🌅🌅🌅🌅🌅🌅🌅.png', 9);
    expect([...cut]).toHaveLength(9);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe('viewer', () => {
  it('fits big pictures, never enlarges small ones, and zooms about the pointer', () => {
    expect(fitScale({ width: 2000, height: 1000 }, { width: 1000, height: 800 })).toBe(0.5);
    expect(fitScale({ width: 200, height: 100 }, { width: 1000, height: 800 })).toBe(1);
    // The point under the pointer stays put: image point p maps to x + p * scale.
    const next = zoomAbout({ scale: 1, x: 0, y: 0 }, 2, 100, 50);
    expect(next).toEqual({ scale: 2, x: -100, y: -50 });
    expect(zoomAbout({ scale: MAX_SCALE, x: 0, y: 0 }, 2, 0, 0).scale).toBe(MAX_SCALE);
  });

  it('steps through the outputs, wrapping around both ends', () => {
    expect(stepIndex(2, 1, 3)).toBe(0);
    expect(stepIndex(0, -1, 3)).toBe(2);
    expect(stepIndex(1, 1, 3)).toBe(2);
    expect(stepIndex(0, 1, 0)).toBe(0);
  });
});
