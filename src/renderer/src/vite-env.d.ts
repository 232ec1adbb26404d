/// <reference types="svelte" />
/// <reference types="vite/client" />
/// <reference path="../../shared/ipc/window.ts" />
