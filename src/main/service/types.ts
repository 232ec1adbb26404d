// Domain types shared by the service client, the job tracker, the CLI and the app.
// Wire shapes are validated where they enter (see messages.ts, responses.ts); these are the
// normalised forms the rest of the code works with.
import type { JsonObject } from '@shared/json';

/** The two kinds of server one client speaks to. */
export type ServerKind = 'cloud' | 'local';

export interface ServerProfile {
  kind: ServerKind;
  /** e.g. https://cloud.comfy.org or http://127.0.0.1:8188, without a trailing slash. */
  baseUrl: string;
}

/** A file reference as found in node outputs and upload answers. */
export interface FileRef {
  filename: string;
  subfolder: string;
  type: string;
}

/** A file produced by a job: a file reference plus where it came from. */
export interface OutputFile extends FileRef {
  /** Node id whose `executed` event carried it. */
  node: string;
  /** Key inside `output`: images, video, videos, audio, gifs, 3d, ... */
  key: string;
}

export interface UploadResult {
  name: string;
  subfolder: string;
  type: string;
}

/** State of the events socket (see EventStream in ports.ts). */
export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'silent' | 'offline' | 'closed';

/** Normalised job phase; `raw` keeps the server's own word. */
export type JobPhase = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface JobStatusReading {
  phase: JobPhase;
  /** The server's word as sent (unknown words are kept and shown, treated as running). */
  raw: string;
  known: boolean;
  errorMessage?: string;
}

export interface QueueEntry {
  promptId: string;
  /** Queue number when the server gives one (index 0 of the entry array). */
  number: number | null;
  /**
   * Only in a queue read for the job list (read exactly: 64-bit seeds keep every digit): the
   * workflow the job runs, and when it was created (epoch ms) if the server says.
   */
  workflow?: Workflow;
  createdAt?: number;
}

export interface QueueSnapshot {
  running: QueueEntry[];
  pending: QueueEntry[];
}

/** One failing input (or node) of a rejected workflow. */
export interface NodeErrorDetail {
  nodeId: string;
  classType: string | null;
  inputName: string | null;
  type: string;
  message: string;
  details: string;
}

export interface SubmitResult {
  promptId: string;
  number: number | null;
}

export type Workflow = JsonObject;

/** Per-node progress as reported by `progress_state`. */
export interface NodeProgress {
  value: number;
  max: number;
  state: 'running' | 'finished' | 'error' | string;
  displayNodeId?: string;
}

/** Events from the socket after validation and normalisation. */
export type ServerEvent =
  | { type: 'status'; queueRemaining: number; sid?: string }
  | { type: 'notification'; value: string }
  | { type: 'feature_flags'; flags: Record<string, unknown> }
  | { type: 'execution_start'; promptId: string }
  | { type: 'execution_cached'; promptId: string; nodes: string[] }
  | { type: 'executing'; promptId: string | null; node: string | null; displayNode?: string }
  | { type: 'progress'; promptId: string | null; node: string | null; value: number; max: number }
  | { type: 'progress_state'; promptId: string; nodes: Record<string, NodeProgress> }
  | { type: 'executed'; promptId: string; node: string; output: Record<string, unknown> | null }
  | { type: 'execution_success'; promptId: string }
  | {
      type: 'execution_error';
      promptId: string;
      nodeId: string | null;
      nodeType: string | null;
      exceptionType: string;
      exceptionMessage: string;
      traceback: string[];
    }
  | { type: 'execution_interrupted'; promptId: string; nodeId: string | null; nodeType: string | null }
  | PreviewEvent
  | ProgressTextEvent
  /** A well-formed frame of a type this client does not know; kept so nothing is silently lost. */
  | { type: 'unknown'; rawType: string; data: unknown };

export type ImageMime = 'image/jpeg' | 'image/png';

export interface PreviewEvent {
  type: 'preview';
  /** Binary frame type: 1 (PREVIEW_IMAGE) or 4 (PREVIEW_IMAGE_WITH_METADATA). */
  frameType: 1 | 4;
  /** Type 4 carries it; type 1 does not (the tracker attributes it to the running job). */
  promptId: string | null;
  nodeId: string | null;
  displayNodeId: string | null;
  mime: ImageMime;
  bytes: Uint8Array;
}

export interface ProgressTextEvent {
  type: 'progress_text';
  nodeId: string;
  text: string;
}
