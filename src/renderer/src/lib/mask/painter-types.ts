// What the painter component hands to whoever saves the mask, and what it shows afterwards.
import type { MaskSource } from './upload';

export interface MaskSaveInfo {
  width: number;
  height: number;
  /** Pixels with any mask coverage. */
  maskedPixels: number;
}

/** What the painter shows after a successful save: what was uploaded and where it went. */
export interface SaveReport {
  lines: string[];
}

export type SaveMask = (png: Uint8Array, info: MaskSaveInfo) => Promise<SaveReport | void>;

/** What a save kept, so the same image and mask re-open for further editing without the server. */
export interface MaskSession {
  source: MaskSource;
  maskPng: Uint8Array;
}
