// The converter against real data: ../shared/ui-corpus holds UI workflows read from output images
// with the API prompt the editor itself queued from each, plus a real server's object_info. Scored
// as compare.py scores a converter: a pair is scoreable when every expected class is in object_info,
// and exact when the ids, classes and every expected input that object_info lists are equal.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertUiWorkflow } from '@main/workflow/convert-ui';
import { parseJsonExact, type JsonObject } from '@shared/json';
import { differences, readCorpus, readExpected, scoreable as isScoreable } from './corpus-score';

// FLOWDECK_UI_CORPUS points elsewhere (a worktree whose ../shared is not the corpus).
const CORPUS = process.env.FLOWDECK_UI_CORPUS ?? resolve(import.meta.dirname, '../..', '..', 'shared', 'ui-corpus');
const PAIRS = join(CORPUS, 'pairs');

/**
 * Pairs whose expected prompt cannot follow from their UI workflow, so no honest converter gets
 * them exact: the workflow chunk was edited after the prompt was queued (model paths with a
 * "SD1.5\\" folder in the prompt, none in the workflow's widgets), or an old editor numbered
 * expanded group-node nodes 60, 61, ... instead of `68:0` (the corpus README's known quirk).
 */
const DATA_DEFECTS: Record<string, string> = {
  'comfy-docs-images-tutorial-controlnet-mixing-controlnets': 'prompt model paths differ from the workflow widgets',
  'comfy-docs-images-tutorial-controlnet-pose-controlnet': 'prompt model paths differ from the workflow widgets',
  'comfyui-examples-stable-cascade-stable-cascade-inpaint-controlnet': 'old editor ids for expanded group-node nodes',
};

const PRESENT = existsSync(PAIRS);
const TITLE = PRESENT ? `UI conversion on the real corpus (${CORPUS})` : `UI conversion on the real corpus: skipped, ${PAIRS} is absent`;

describe.skipIf(!PRESENT)(TITLE, () => {
  it('converts every scoreable pair, >= 97.5% exactly, and only the known data defects differ', () => {
    const { objectInfo, definitions, names } = readCorpus(CORPUS);
    let scoreable = 0;
    const failed: string[] = [];
    const differing: Record<string, string[]> = {};
    for (const name of names) {
      const expected = readExpected(join(PAIRS, `${name}.api.json`));
      if (!isScoreable(expected, objectInfo)) continue;
      scoreable += 1;
      let prompt: JsonObject;
      try {
        prompt = convertUiWorkflow(parseJsonExact(readFileSync(join(PAIRS, `${name}.ui.json`), 'utf8')) as JsonObject, definitions).prompt;
      } catch (error) {
        failed.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      const diffs = differences(expected, prompt, objectInfo);
      if (diffs.length > 0) differing[name] = diffs.slice(0, 3);
    }
    const exact = scoreable - failed.length - Object.keys(differing).length;
    console.log(`ui-conversion: ${exact}/${scoreable} exact (${((100 * exact) / scoreable).toFixed(1)}%), ${failed.length} failed to convert`);
    expect(scoreable).toBeGreaterThan(100);
    expect(failed).toEqual([]);
    expect(
      Object.keys(differing).filter((name) => !(name in DATA_DEFECTS)),
      JSON.stringify(differing, null, 1),
    ).toEqual([]);
    expect(exact / scoreable).toBeGreaterThanOrEqual(0.975);
  });
});
