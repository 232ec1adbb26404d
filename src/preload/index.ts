// Placeholder preload: the typed bridge arrives with the desktop app issue.
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('flowdeck', Object.freeze({}));
