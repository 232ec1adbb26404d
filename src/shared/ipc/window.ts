// `window.flowdeck` for the renderer's type checks: the same object whether the preload (Electron)
// or the harness bridge script (browser) installed it.
import type { FlowdeckApi } from './contract';

declare global {
  interface Window {
    readonly flowdeck: FlowdeckApi;
  }
}

export {};
