// The DemoNodeContext a node runs with: progress, previews and text go out through the job's
// emitter; sleeps are scaled by timeScale and end early (InterruptedError) when the job is
// interrupted; files are read and written in the service's data folders.
import type { JsonObject } from '@shared/json';
import type { FileArea, DataDirs } from './files';
import type { JobEmitter } from './job-emitter';
import { InterruptedError, type DemoNodeContext, type RgbaImage, type SavedFile } from './node-api';

export interface NodeContextOptions {
  promptId: string;
  nodeId: string;
  extraData: JsonObject;
  accountKey: string | null;
  timeScale: number;
  signal: AbortSignal;
  emitter: JobEmitter;
  files: DataDirs;
}

function interruptibleSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new InterruptedError());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new InterruptedError());
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The context also offers `saveFileStream` (the node library's StreamingSaveContext): chunks are
 * written as they come, so large outputs never sit in memory whole.
 */
export interface StreamingNodeContext extends DemoNodeContext {
  saveFileStream(prefix: string, extension: string, chunks: AsyncIterable<Uint8Array>, type: 'output' | 'temp'): Promise<SavedFile>;
}

export function createNodeContext(o: NodeContextOptions): StreamingNodeContext {
  return {
    promptId: o.promptId,
    nodeId: o.nodeId,
    extraData: o.extraData,
    accountKey: o.accountKey,
    timeScale: o.timeScale,
    progress(value: number, max: number): void {
      o.emitter.progress(o.nodeId, value, max);
    },
    preview(image: RgbaImage): void {
      o.emitter.preview(o.nodeId, image);
    },
    text(message: string): void {
      o.emitter.text(o.nodeId, message);
    },
    sleep(ms: number): Promise<void> {
      return interruptibleSleep(ms * o.timeScale, o.signal);
    },
    checkInterrupted(): void {
      if (o.signal.aborted) throw new InterruptedError();
    },
    readFile(filename: string, subfolder: string, type: FileArea): Promise<Uint8Array> {
      return o.files.readFile(filename, subfolder, type);
    },
    saveFile(prefix: string, extension: string, bytes: Uint8Array, type: 'output' | 'temp'): Promise<SavedFile> {
      return o.files.saveFile(prefix, extension, bytes, type);
    },
    saveFileStream(prefix: string, extension: string, chunks: AsyncIterable<Uint8Array>, type: 'output' | 'temp'): Promise<SavedFile> {
      return o.files.saveChunks(prefix, extension, chunks, type);
    },
  };
}
