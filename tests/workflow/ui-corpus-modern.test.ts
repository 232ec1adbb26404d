// The converter against the editor's own conversion of modern graphs: ../shared/ui-corpus-modern
// holds the open-source frontend's test graphs (subgraphs nested and promoted, native reroutes,
// bypass and mute inside subgraphs, legacy group nodes in every saved version, dynamic combos,
// widgets computed at queue time) with what the real editor (v1.35.9) queued for each, and the
// definitions of the real server it ran on (v0.8.0). Scored as compare.py scores a converter.
// The folder is read where it lies, never copied into the project.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertUiWorkflow, type UiConversion } from '@main/workflow/convert-ui';
import { parseJsonExact, type JsonObject } from '@shared/json';
import { differences, readCorpus, readExpected, scoreable as isScoreable } from './corpus-score';

// FLOWDECK_UI_CORPUS_MODERN points elsewhere (a checkout whose ../shared is not the corpus).
const CORPUS = process.env.FLOWDECK_UI_CORPUS_MODERN ?? resolve(import.meta.dirname, '../..', '..', 'shared', 'ui-corpus-modern');
const PAIRS = join(CORPUS, 'pairs');

/**
 * Pairs no converter can get exact from the file alone, each with the input it cannot know. The
 * converter must name exactly that input (node, input, why) and get everything else exact.
 * (The two webcam graphs the corpus README mentions have no API side at all: the editor needs a
 * camera to queue them, so they are not pairs.)
 */
const NOT_DERIVABLE: Record<string, { node: string; input: string; why: string }> = {
  '3d__load3d_node': { node: '1', input: 'image', why: "the 3D viewer's picture of the scene, rendered and uploaded by the editor when it queues" },
  '3d__preview3d_pipeline': { node: '1', input: 'image', why: "the 3D viewer's picture of the scene, rendered and uploaded by the editor when it queues" },
};

const PRESENT = existsSync(PAIRS);
const TITLE = PRESENT ? `UI conversion on the modern corpus (${CORPUS})` : `UI conversion on the modern corpus: skipped, ${PAIRS} is absent`;

describe.skipIf(!PRESENT)(TITLE, () => {
  it('gets every pair exact but those that cannot be derived, and names what those lack', () => {
    const { objectInfo, definitions, names } = readCorpus(CORPUS);
    let scored = 0;
    let exact = 0;
    const failed: string[] = [];
    const differing: Record<string, string[]> = {};
    const notDerivable: Record<string, string[]> = {};
    const empty: string[] = [];
    for (const name of names) {
      const apiPath = join(PAIRS, `${name}.api.json`);
      if (!existsSync(apiPath)) continue;
      const expected = readExpected(apiPath);
      if (!isScoreable(expected, objectInfo)) continue;
      scored += 1;
      let conversion: UiConversion;
      try {
        conversion = convertUiWorkflow(parseJsonExact(readFileSync(join(PAIRS, `${name}.ui.json`), 'utf8')) as JsonObject, definitions);
      } catch (error) {
        failed.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      const diffs = differences(expected, conversion.prompt, objectInfo);
      const known = NOT_DERIVABLE[name];
      if (known) {
        // Only the unknowable input differs, and the conversion says so, naming it.
        notDerivable[name] = diffs;
        expect(diffs, name).toEqual([`node ${known.node}.${known.input}: undefined`]);
        expect(
          conversion.unknowable.map((u) => `${u.nodeId}.${u.input}:${u.required}`),
          name,
        ).toEqual([`${known.node}.${known.input}:true`]);
        expect(conversion.warnings.join('\n'), name).toContain(`Node ${known.node} (`);
        continue;
      }
      if (diffs.length > 0) differing[name] = diffs.slice(0, 3);
      else exact += 1;
      if (Object.keys(expected).length === 0) {
        // Nothing to run is the exact conversion, and it comes with the reason.
        empty.push(name);
        expect(conversion.emptyBecause, name).toMatch(
          /^(Nothing in this workflow runs on the server: it holds .+\.|The workflow has no nodes at all: there is nothing to run\.)$/,
        );
      }
    }
    const pct = (100 * exact) / scored;
    console.log(
      `ui-conversion (modern): ${exact}/${scored} exact (${pct.toFixed(1)}%), ${failed.length} failed to convert; not derivable: ${Object.keys(notDerivable).join(', ')}; empty prompts: ${empty.length}`,
    );
    expect(scored).toBeGreaterThanOrEqual(90);
    expect(failed).toEqual([]);
    expect(differing, JSON.stringify(differing, null, 1)).toEqual({});
    expect(Object.keys(notDerivable).sort()).toEqual(Object.keys(NOT_DERIVABLE).sort());
    expect(exact).toBe(scored - Object.keys(NOT_DERIVABLE).length);
  });
});
