// The open workflow's app as arranged: which inputs it shows (pins, in order), where that came
// from, and saving it. Every arrangement is kept at once by the core (apps.keep, Flowdeck's own
// store: the only place an API file's app can live). A UI file opened from disk is saved into
// itself (apps.saveToFile: extra.linearData, so the editor opens it as an app too); a UI workflow
// from elsewhere (a sample, a template, history, an image) is saved as a new file: the save dialog
// in the desktop app (apps.saveAs), a download in a browser.
import type { AppLayoutKey, CallResult } from '@shared/ipc/contract';
import { parseJsonExact, stringifyJsonExact, type JsonObject } from '@shared/json';
import { setLinearData } from '@shared/linear-data';
import { messageOf, type Api } from '../api';
import { linearDataInputs, linearDataOutputs, type AppInput } from '../workflow/app-inputs';
import { appKeyOf, chooseApp, forgetLegacyApp, legacyApp, sameApp, workflowShape, type AppSource } from '../workflow/app-store';
import type { Notice, OpenDocument } from './workflow.svelte';

/** The desktop app has a native save dialog; a browser downloads instead. */
const nativeDialog = (): boolean => typeof navigator !== 'undefined' && /\bElectron\//.test(navigator.userAgent);

export class AppArrangement {
  /** The app's inputs as arranged (kept, or the file's linearData); null: the proposed app. */
  pins = $state.raw<AppInput[] | null>(null);
  source = $state<AppSource>('proposed');
  /** The UI file on disk this app saves into, with the hash of its bytes as last read or written. */
  file = $state.raw<{ path: string; hash: string } | null>(null);
  /** The UI graph as it is now: the file's text after a save. Null for an API workflow. */
  uiJson = $state.raw<string | null>(null);
  saving = $state(false);
  /** The nodes whose outputs the app shows (the file's linearData.outputs); null: every output. */
  outputs = $derived(linearDataOutputs(this.uiJson));
  /** The open workflow's shape: a job of the same graph shows the app's outputs. */
  #shape = $state<string | null>(null);

  readonly #api: Api;
  readonly #notify: (notice: Notice) => void;
  #doc: OpenDocument | null = null;
  #key: Promise<AppLayoutKey> | null = null;
  /** Bumped by each arrangement: a kept app that arrives late does not undo what the user did meanwhile. */
  #generation = 0;

  constructor(api: Api, notify: (notice: Notice) => void) {
    this.#api = api;
    this.#notify = notify;
  }

  /** A workflow is open: its file's app at once, then the one kept for it, if the core has a better one. */
  adopt(doc: OpenDocument, file: { path: string; hash: string } | null): void {
    this.#doc = doc;
    this.#generation += 1;
    const generation = this.#generation;
    this.file = file;
    this.uiJson = doc.uiWorkflowJson;
    this.#shape = workflowShape(doc.workflow);
    const fromFile = linearDataInputs(doc.uiWorkflowJson);
    const initial = chooseApp(null, fromFile, doc.uiWorkflowJson !== null);
    this.pins = initial.pins;
    this.source = initial.source;
    const key = appKeyOf(doc.workflow, doc.uiWorkflowJson, file?.path ?? doc.path);
    this.#key = key;
    void key
      .then((k) => this.#api.call('apps.get', k))
      .then((found) => {
        if (this.#doc !== doc || this.#generation !== generation) return;
        const kept = found ?? this.#carryOver(doc.workflow);
        const chosen = chooseApp(kept, fromFile, doc.uiWorkflowJson !== null);
        this.pins = chosen.pins;
        this.source = chosen.source;
      })
      .catch((error: unknown) => console.warn('flowdeck: the kept app could not be read', error));
  }

  /**
   * An app the version before kept in the window's storage, when the core has none: handed to the
   * core (apps.keep) and then forgotten there, so it is carried over once. Shown as found by shape.
   */
  #carryOver(workflow: JsonObject): CallResult<'apps.get'> {
    const shape = workflowShape(workflow);
    const inputs = legacyApp(shape);
    const key = this.#key;
    if (!inputs || !key) return null;
    void key
      .then((k) => this.#api.call('apps.keep', { key: k, inputs }))
      .then(() => forgetLegacyApp(shape))
      .catch((error: unknown) => console.warn('flowdeck: the app kept by the earlier version could not be carried over', error));
    return { inputs, match: 'shape', savedAt: 0 };
  }

  /** The nodes whose outputs a job of `workflow` shows on the stage: the app's, when it is this workflow; null: all. */
  outputsFor(workflow: JsonObject | null): string[] | null {
    const listed = this.outputs;
    return listed !== null && workflow !== null && workflowShape(workflow) === this.#shape ? listed : null;
  }

  /** The user pinned, unpinned or moved an input: shown at once, kept by the core. */
  arrange(inputs: AppInput[]): void {
    const doc = this.#doc;
    if (!doc) return;
    this.#generation += 1;
    this.pins = inputs;
    const fromFile = linearDataInputs(this.uiJson);
    this.source = this.uiJson === null ? 'saved' : fromFile && sameApp(fromFile, inputs) ? 'file' : 'unsaved';
    const key = this.#key;
    if (!key) return;
    void key
      .then((k) => this.#api.call('apps.keep', { key: k, inputs }))
      .catch((error: unknown) =>
        this.#notify({ tone: 'error', title: 'The app could not be kept', message: `It lasts until you open another workflow: ${messageOf(error)}` }),
      );
  }

  /** Writes the app into the UI file it was opened from. */
  async saveToFile(inputs: AppInput[]): Promise<void> {
    const file = this.file;
    const doc = this.#doc;
    if (!file || !doc || this.saving) return;
    this.saving = true;
    try {
      const saved = await this.#api.call('apps.saveToFile', { path: file.path, fileHash: file.hash, inputs });
      if (this.#doc !== doc) return;
      this.#saved(doc, saved.path, saved.fileHash, saved.uiWorkflowJson, inputs);
      this.#notify({ tone: 'info', title: 'App saved', message: `${doc.name} now opens as this app, here and in the editor.` });
    } catch (error) {
      this.#notify({ tone: 'error', title: 'The app was not saved', message: messageOf(error) });
    } finally {
      this.saving = false;
    }
  }

  /** "Save as…": a new UI file with the app in it (the save dialog; in a browser, a download). */
  async saveAs(inputs: AppInput[]): Promise<void> {
    const doc = this.#doc;
    const ui = this.uiJson;
    if (!doc || ui === null || this.saving) return;
    const suggestedName = `${doc.name.replace(/(\.app)?\.(json|png|webp)$/i, '')}.app.json`;
    if (!nativeDialog()) {
      this.#download(suggestedName, setLinearData(stringifyJsonExact(parseJsonExact(ui), 2), inputs));
      return;
    }
    this.saving = true;
    try {
      const saved = await this.#api.call('apps.saveAs', { uiWorkflowJson: ui, suggestedName, inputs });
      if (!saved.saved || !saved.path || !saved.fileHash || saved.uiWorkflowJson === null || this.#doc !== doc) return;
      this.#saved(doc, saved.path, saved.fileHash, saved.uiWorkflowJson, inputs);
      this.#notify({ tone: 'info', title: 'App saved', message: `Saved as ${saved.path}; it opens as this app, here and in the editor.` });
    } catch (error) {
      this.#notify({ tone: 'error', title: 'The app was not saved', message: messageOf(error) });
    } finally {
      this.saving = false;
    }
  }

  #saved(doc: OpenDocument, path: string, hash: string, text: string, inputs: AppInput[]): void {
    this.file = { path, hash };
    this.uiJson = text;
    this.pins = inputs;
    this.source = 'file';
    // Later arrangements are kept under the file as it is now.
    this.#key = appKeyOf(doc.workflow, text, path);
  }

  #download(name: string, text: string): void {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
