// The contract between the demo service's executor (executor.ts) and its node library (nodes/).
// A node is a plain object: its object_info definition and a `run` function that does real work.
import type { JsonObject } from '@shared/json';

/** An image in memory: 8-bit RGBA, row-major. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array; // length width*height*4
}

/** A mask: one float per pixel in [0,1], 1 = masked (as the real loader: mask = 1 - alpha). */
export interface Mask {
  width: number;
  height: number;
  data: Float32Array;
}

/** Values flowing along links between nodes. */
export type NodeValue = RgbaImage | Mask | string | number | bigint | boolean | null | { kind: string; [k: string]: unknown };

export interface SavedFile {
  filename: string;
  subfolder: string;
  type: 'output' | 'temp';
}

export interface DemoNodeContext {
  readonly promptId: string;
  readonly nodeId: string;
  /** The submit's extra_data (partner nodes look for api_key_comfy_org here). */
  readonly extraData: JsonObject;
  /** The account's API key when the service has one (cloud flavour); null locally. */
  readonly accountKey: string | null;
  /** Multiplies every delay a node sleeps; tests run with small values. */
  readonly timeScale: number;
  /** Sends `progress` and `progress_state` for this node. */
  progress(value: number, max: number): void;
  /** Sends a preview frame (type 4 to sockets that announced the flag, else type 1). */
  preview(image: RgbaImage): void;
  /** Sends a TEXT (type 3) frame for this node. */
  text(message: string): void;
  /** Sleeps; rejects with an InterruptedError when the job is interrupted or cancelled meanwhile. */
  sleep(ms: number): Promise<void>;
  /** Throws InterruptedError when the job has been interrupted. */
  checkInterrupted(): void;
  /** Reads an uploaded/output file by reference; throws if missing or the path escapes. */
  readFile(filename: string, subfolder: string, type: 'input' | 'output' | 'temp'): Promise<Uint8Array>;
  /** Stores bytes as an output (or temp) file named after `prefix`; returns its reference. */
  saveFile(prefix: string, extension: string, bytes: Uint8Array, type: 'output' | 'temp'): Promise<SavedFile>;
}

/** What a node returns: its output values (by output index) and its UI outputs for `executed`. */
export interface NodeResult {
  outputs: NodeValue[];
  /** e.g. { images: [SavedFile...] } or { video: [...] }; omitted for non-output nodes. */
  ui?: Record<string, SavedFile[] | boolean>;
}

export interface DemoNode {
  /** The object_info entry, exactly as served (seed maxima as bigint). */
  definition: JsonObject;
  run(context: DemoNodeContext, inputs: Record<string, NodeValue>): Promise<NodeResult>;
  /** Extra validation beyond types and ranges (e.g. LoadImage checks the file exists); returns a reason or null. */
  validate?(inputs: Record<string, unknown>, files: { inputExists(name: string): boolean }): string | null;
}

export class InterruptedError extends Error {
  constructor() {
    super('interrupted');
    this.name = 'InterruptedError';
  }
}

/** A node failing on purpose or for a reason a user should see (becomes execution_error). */
export class NodeExecutionError extends Error {
  readonly exceptionType: string;
  constructor(exceptionType: string, message: string) {
    super(message);
    this.name = 'NodeExecutionError';
    this.exceptionType = exceptionType;
  }
}
