// REST answers: rejection bodies recorded from a local server (traces/invalid_prompts.json) and the
// cloud's free-form ones become WorkflowRejectedError naming node, class, input and reason; queue
// entries of both shapes yield ids only; history entries give outputs, errors and phases.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ServiceError, WorkflowRejectedError } from '@main/service/errors';
import {
  historyEntryFor,
  isDuplicatePromptId,
  parseHistoryEntry,
  parseJobStatusAnswer,
  parseQueueAnswer,
  parseSubmitAnswer,
  parseUploadAnswer,
  rejectionFromBody,
} from '@main/service/responses';

const TRACES = new URL('../demo/traces', import.meta.url).pathname;
const invalid = JSON.parse(readFileSync(`${TRACES}/invalid_prompts.json`, 'utf8')) as Record<string, { status: number; json?: unknown; text?: string }>;

function rejection(name: string): WorkflowRejectedError {
  const record = invalid[name];
  if (!record?.json) throw new Error(`no JSON body for ${name}`);
  const error = rejectionFromBody(record.json, record.status, null);
  if (!error) throw new Error(`not read as a rejection: ${name}`);
  return error;
}

describe('rejections recorded from a local server', () => {
  it('every JSON 400 body is a WorkflowRejectedError', () => {
    for (const [name, record] of Object.entries(invalid)) {
      if (!record.json) continue;
      const error = rejection(name);
      expect(error).toBeInstanceOf(WorkflowRejectedError);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error.kind).toBe('invalid_workflow');
      expect(error.status).toBe(400);
      expect(error.retryable).toBe(false);
    }
  });

  it('missing required input: node 2, ImageInvert, input "image", reason', () => {
    const error = rejection('missing_required_input');
    expect(error.errorType).toBe('prompt_outputs_failed_validation');
    expect(error.nodeErrors).toEqual([
      { nodeId: '2', classType: 'ImageInvert', inputName: 'image', type: 'required_input_missing', message: 'Required input is missing', details: 'image' },
    ]);
    expect(error.message).toContain('node 2 (ImageInvert), input "image": Required input is missing');
  });

  it('image not in list: the custom validation detail is the reason', () => {
    const error = rejection('image_not_in_list');
    expect(error.message).toContain('node 1 (LoadImage), input "image"');
    expect(error.message).toContain('Invalid image file: does_not_exist.png');
  });

  it('link type mismatch, value below min, wrong value type', () => {
    expect(rejection('type_mismatch_link').message).toMatch(
      /node 3 \(SaveImage\), input "images": Return type mismatch between linked nodes: .*received_type\(MASK\)/,
    );
    expect(rejection('value_below_min').message).toContain('node 1 (PreviewLoop), input "steps": Value 0 smaller than min of 1');
    expect(rejection('wrong_value_type').message).toMatch(/node 1 \(PreviewLoop\), input "steps": Failed to convert an input value to a INT value: steps, abc/);
  });

  it('link to a missing node: no input name is invented from "\'99\'"', () => {
    const error = rejection('link_to_missing_node');
    expect(error.nodeErrors[0]).toMatchObject({ nodeId: '3', classType: 'SaveImage', inputName: null, type: 'exception_during_validation' });
    expect(error.message).toContain("node 3 (SaveImage): Exception when validating node: '99'");
  });

  it('whole-prompt errors without node errors keep their message and details', () => {
    expect(rejection('unknown_class_type').message).toContain("Cannot execute because node NoSuchNode does not exist. (Node ID '#1')");
    expect(rejection('missing_class_type').message).toContain('missing the class_type property');
    expect(rejection('no_output_node').errorType).toBe('prompt_no_outputs');
    expect(rejection('empty_prompt').message).toContain('Prompt has no outputs');
    expect(rejection('no_prompt_key').message).toContain('No prompt provided');
    expect(rejection('no_prompt_key').message).not.toContain('No prompt provided (No prompt provided)');
  });

  it('the 500 text body is not a rejection', () => {
    expect(rejectionFromBody(invalid.non_json_body?.text, 500, null)).toBeNull();
    expect(rejectionFromBody(undefined, 500, null)).toBeNull();
  });
});

describe('cloud rejections and submit answers', () => {
  it('{error: "text"} and {code, message}', () => {
    const a = rejectionFromBody({ error: 'Workflow contains unsupported node FooBar' }, 400, null);
    expect(a?.message).toContain('Workflow contains unsupported node FooBar');
    const b = rejectionFromBody({ code: 'INVALID_WORKFLOW', message: 'node 4 needs a model' }, 400, null);
    expect(b?.errorType).toBe('INVALID_WORKFLOW');
    expect(b?.message).toContain('node 4 needs a model');
  });

  it('a 200 body carrying error is a rejection; a success body gives id and number', () => {
    expect(() => parseSubmitAnswer({ error: 'no credits for partner node' }, 200, null)).toThrow(WorkflowRejectedError);
    expect(parseSubmitAnswer({ prompt_id: 'abc', number: 4, node_errors: {} }, 200, null)).toEqual({ promptId: 'abc', number: 4 });
    expect(parseSubmitAnswer({ prompt_id: 'abc' }, 200, null)).toEqual({ promptId: 'abc', number: null });
    expect(parseSubmitAnswer({ prompt_id: 'abc', error: null }, 200, null)).toEqual({ promptId: 'abc', number: null });
    expect(() => parseSubmitAnswer({ ok: true }, 200, null)).toThrow(expect.objectContaining({ kind: 'protocol' }));
  });

  it('the key is redacted from server text', () => {
    const error = rejectionFromBody({ error: 'bad key sk-SECRET-123 for partner node' }, 400, 'sk-SECRET-123');
    expect(error?.message).not.toContain('sk-SECRET-123');
    expect(error?.message).toContain('[redacted]');
  });

  it('recognises a duplicate client-chosen prompt_id', () => {
    const dup = rejectionFromBody(
      { error: { type: 'invalid_prompt_id', message: 'Prompt ID already exists', details: '', extra_info: {} }, node_errors: {} },
      400,
      null,
    );
    expect(dup && isDuplicatePromptId(dup)).toBe(true);
    const other = rejectionFromBody(
      { error: { type: 'invalid_prompt_id', message: 'Prompt ID is not a valid UUID', details: '', extra_info: {} }, node_errors: {} },
      400,
      null,
    );
    expect(other && isDuplicatePromptId(other)).toBe(false);
  });
});

describe('queue answers', () => {
  it('local entries (recorded): ids and numbers only, never extra_data', () => {
    const trace = JSON.parse(readFileSync(`${TRACES}/queue_interrupt.json`, 'utf8')) as { queue_while_pending: { json: unknown } };
    const queue = parseQueueAnswer(trace.queue_while_pending.json);
    expect(queue).toEqual({
      running: [{ promptId: 'ec2d5dbe-abee-4bbe-bb9f-38e2b3838366', number: 17 }],
      pending: [
        { promptId: '0d2c064d-c351-4db9-8389-ec4267ada9e1', number: -19 },
        { promptId: '90848395-c7fa-4b90-838f-8a10af19f024', number: 18 },
      ],
    });
  });

  it('cloud entries and an old server leaking the key in extra_data', () => {
    const body = {
      queue_running: [[3, 'cloud-1', { '1': {} }, ['9'], { create_time: 1795234972 }]],
      queue_pending: [[4, 'local-2', {}, { client_id: 'c', api_key_comfy_org: 'sk-LEAK' }, ['3']], ['x'], [5], 'junk', { prompt_id: 'obj-3', number: 6 }],
    };
    const queue = parseQueueAnswer(body);
    expect(queue).toEqual({
      running: [{ promptId: 'cloud-1', number: 3 }],
      pending: [
        { promptId: 'local-2', number: 4 },
        { promptId: 'obj-3', number: 6 },
      ],
    });
    expect(JSON.stringify(queue)).not.toContain('sk-LEAK');
    expect(parseQueueAnswer({})).toEqual({ running: [], pending: [] });
    expect(parseQueueAnswer('nope')).toBeNull();
  });

  it("with details: each entry's workflow and creation time (cloud seconds, local ms), and nothing else of extra_data", () => {
    const body = {
      queue_running: [[3, 'cloud-1', { '1': { class_type: 'A', inputs: {} } }, ['9'], { create_time: 1795234972 }]],
      queue_pending: [
        [4, 'local-2', { '2': { class_type: 'B', inputs: {} } }, { client_id: 'c', create_time: 1795234972123, api_key_comfy_org: 'sk-LEAK' }, ['9']],
        [5, 'local-3', 'not a workflow', { client_id: 'c' }, ['9']],
      ],
    };
    const queue = parseQueueAnswer(body, { details: true });
    expect(queue).toEqual({
      running: [{ promptId: 'cloud-1', number: 3, workflow: { '1': { class_type: 'A', inputs: {} } }, createdAt: 1795234972000 }],
      pending: [
        { promptId: 'local-2', number: 4, workflow: { '2': { class_type: 'B', inputs: {} } }, createdAt: 1795234972123 },
        { promptId: 'local-3', number: 5 },
      ],
    });
    expect(JSON.stringify(queue)).not.toContain('sk-LEAK');
  });
});

describe('history entries', () => {
  it('success (recorded): outputs and phase', () => {
    const trace = JSON.parse(readFileSync(`${TRACES}/simple_prompt.json`, 'utf8')) as { history: { json: unknown }; history_unknown_id: { json: unknown } };
    const id = '55a658eb-1f40-44cc-9361-53a3c6633fcd';
    const parsed = parseHistoryEntry(historyEntryFor(trace.history.json, id), null);
    expect(parsed).toEqual({
      reading: { phase: 'succeeded', raw: 'success', known: true },
      outputs: [{ filename: 'inverted_00001_.png', subfolder: 'samples', type: 'output', node: '3', key: 'images' }],
    });
    expect(historyEntryFor(trace.history_unknown_id.json, id)).toBeUndefined();
  });

  it('error (recorded): failed with the execution_error', () => {
    const trace = JSON.parse(readFileSync(`${TRACES}/execution_error.json`, 'utf8')) as { history: { json: unknown } };
    const parsed = parseHistoryEntry(historyEntryFor(trace.history.json, 'e059801d-9dcb-4a51-855d-c6fb254728a0'), null);
    expect(parsed?.reading).toMatchObject({ phase: 'failed', raw: 'error', known: true });
    expect(parsed?.reading.errorMessage).toContain('RuntimeError (node 5, PreviewLoop): PreviewLoop: deliberate failure at step 2');
    expect(parsed?.error).toMatchObject({ exceptionType: 'RuntimeError', nodeId: '5', nodeType: 'PreviewLoop' });
    expect(parsed?.error?.traceback).toHaveLength(5);
  });

  it('interrupted (recorded): cancelled', () => {
    const trace = JSON.parse(readFileSync(`${TRACES}/queue_interrupt.json`, 'utf8')) as { history_p1: { json: unknown } };
    const parsed = parseHistoryEntry(historyEntryFor(trace.history_p1.json, 'ec2d5dbe-abee-4bbe-bb9f-38e2b3838366'), null);
    expect(parsed?.reading).toEqual({ phase: 'cancelled', raw: 'error', known: true });
    expect(parsed?.outputs).toEqual([]);
  });
});

describe('status and upload answers', () => {
  it('cloud status bodies', () => {
    expect(parseJobStatusAnswer({ status: 'in_progress', id: 'x', created_at: '2026-01-01' }, null)).toEqual({
      phase: 'running',
      raw: 'in_progress',
      known: true,
    });
    expect(parseJobStatusAnswer({ status: 'failed', error_message: 'OOM' }, null)).toEqual({
      phase: 'failed',
      raw: 'failed',
      known: true,
      errorMessage: 'OOM',
    });
    expect(parseJobStatusAnswer({ state: 'x' }, null)).toBeNull();
  });

  it('upload answers (recorded shapes)', () => {
    const uploads = JSON.parse(readFileSync(`${TRACES}/uploads.json`, 'utf8')) as Record<string, { json?: unknown }>;
    expect(parseUploadAnswer(uploads.upload_image_diff_content_no_overwrite?.json, 'input')).toEqual({ name: 'sample (1).png', subfolder: '', type: 'input' });
    expect(parseUploadAnswer(uploads.upload_mask?.json, 'input')).toEqual({ name: 'clipspace-mask-1.png', subfolder: 'clipspace', type: 'input' });
    expect(parseUploadAnswer({ name: 'abc.png' }, 'input')).toEqual({ name: 'abc.png', subfolder: '', type: 'input' });
    expect(parseUploadAnswer({ subfolder: '' }, 'input')).toBeNull();
  });
});
