// The script the harness injects into the page: it builds `window.flowdeck` with the very same
// functions the preload uses (buildFlowdeckApi) over a WebSocket transport. The functions are
// self-contained, so their source text runs in the browser unchanged.
import { buildFlowdeckApi } from '@shared/ipc/bridge';
import { CALL_NAMES, CORE_LINK_EVENT, EVENT_NAMES, PREVIEW_ACK_NOTE, PREVIEW_EVENT, READY_CALL } from '@shared/ipc/names';
import { createSocketTransport, decodeWire, encodeWire } from '@shared/ipc/wire';

export const BRIDGE_PATH = '/__flowdeck/bridge.js';
export const SOCKET_PATH = '/__flowdeck/ws';

export function bridgeScript(): string {
  const names = JSON.stringify({ calls: CALL_NAMES, events: EVENT_NAMES, previewEvent: PREVIEW_EVENT, previewAck: PREVIEW_ACK_NOTE });
  // esbuild (tsx) decorates function sources with __name(...) to keep names; a no-op shim lets the
  // same source run in the page when the harness itself runs from TypeScript sources.
  return `(function () {
  'use strict';
  var __name = function (target) { return target; };
  var source = document.currentScript && document.currentScript.src;
  var token = source ? new URL(source).searchParams.get('token') : null;
  if (!token) token = new URLSearchParams(location.search).get('token');
  var url = (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + ${JSON.stringify(SOCKET_PATH)} + '?token=' + encodeURIComponent(token || '');
  var codec = { encode: (${encodeWire.toString()}), decode: (${decodeWire.toString()}) };
  // The page learns at once when the core is gone (the renderer's ConnectionStore listens).
  var onLink = function (up) { if (typeof window.dispatchEvent === 'function' && typeof CustomEvent === 'function') window.dispatchEvent(new CustomEvent(${JSON.stringify(CORE_LINK_EVENT)}, { detail: { up: up } })); };
  var transport = (${createSocketTransport.toString()})(url, WebSocket, codec, ${JSON.stringify(READY_CALL)}, onLink);
  var api = (${buildFlowdeckApi.toString()})(transport, ${names});
  Object.defineProperty(window, 'flowdeck', { value: api, writable: false, configurable: false, enumerable: true });
})();
`;
}
