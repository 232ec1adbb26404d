// --set NODE.INPUT=VALUE: only a node's own inputs, never an object's prototype, and an input the
// node's class lacks is named with the inputs it has.
import { describe, expect, it } from 'vitest';
import { parseAssignment, setInput, unknownInputProblem, WorkflowEditError } from '@main/workflow/edit';
import { parseNodeDefinitions } from '@main/service/object-info';
import type { Workflow } from '@main/service/types';

function workflow(): Workflow {
  return { '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 20 } } };
}

const DEFINITIONS = parseNodeDefinitions(
  JSON.stringify({
    KSampler: {
      input: { required: { seed: ['INT', { default: 0 }], steps: ['INT', { default: 20 }], cfg: ['FLOAT', { default: 8 }] } },
      input_order: { required: ['seed', 'steps', 'cfg'] },
      output: ['LATENT'],
    },
  }),
);

describe('--set', () => {
  it('touches no prototype: __proto__, constructor and prototype are refused', () => {
    for (const spec of ['__proto__.x=1', '3.__proto__=1', 'constructor.x=1', '3.constructor=1', 'prototype.x=1']) {
      const wf = workflow();
      const { ref } = parseAssignment(spec);
      expect(() => setInput(wf, ref, 1), spec).toThrow(WorkflowEditError);
      expect(wf).toEqual(workflow());
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(({} as Record<string, unknown>).inputs).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('inputs');
    expect(Object.prototype).not.toHaveProperty('x');
  });

  it('an inherited name is not a node', () => {
    const { ref } = parseAssignment('toString.x=1');
    expect(() => setInput(workflow(), ref, 1)).toThrow(/no node "toString"/);
  });

  it('an input the node definition lacks is named with the inputs it has', () => {
    const wf = workflow();
    const { ref } = parseAssignment('3.sed=5');
    setInput(wf, ref, 5);
    expect(unknownInputProblem(wf, ref, DEFINITIONS)).toBe('Node 3 (KSampler) has no input "sed". Its inputs are: seed, steps, cfg.');
    expect(unknownInputProblem(wf, parseAssignment('3.cfg=5').ref, DEFINITIONS)).toBeNull();
    // A class the server does not list: the server itself names it on submit.
    expect(unknownInputProblem({ '1': { class_type: 'Custom', inputs: {} } }, { nodeId: '1', input: 'x' }, DEFINITIONS)).toBeNull();
  });
});
