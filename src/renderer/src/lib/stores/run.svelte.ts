// The Run view's controller: opening a workflow file, the form built from it, uploads into image
// inputs, and submitting with a repeat count, on the active server or over the pool. Problems are reported where the user acts: in the
// form (aria-invalid + message), in a notice, or at the key field (401).
import { MAX_WORKFLOW_FILE_BYTES, type CallResult, type RunTarget, type UploadView } from '@shared/ipc/contract';
import type { MaskSaveResult } from '../mask/upload';
import { isJsonObject, parseJsonExact, stringifyJsonExact, type JsonObject, type JsonValue } from '@shared/json';
import { messageOf, type Api } from '../api';
import { routeError } from '../errors';
import { appFields, proposeApp, type AppInput } from '../workflow/app-inputs';
import { applyDrafts, draftOf, fieldKey, initialDraft } from '../workflow/drafts';
import { randomBigIntInRange, toBigInt } from '../workflow/exact';
import { buildForm, type FormField, type NodeGroup } from '../workflow/form-model';
import { AppArrangement } from './app-arrangement.svelte';
import type { DefinitionsStore } from './definitions.svelte';
import type { JobsStore } from './jobs.svelte';
import type { Navigation } from './navigation.svelte';
import type { RecentStore } from './recent.svelte';
import { uploadNames } from './upload-names';
import { interpretParse, OpenDocument, openedNotice, type Notice } from './workflow.svelte';

const UINT64_MAX = 18446744073709551615n;
/** What "Open workflow" and a drop accept: JSON (API or UI format) and the images that carry a workflow. */
const WORKFLOW_FILE_NAME = /\.(json|png|webp)$/i;
const WORKFLOW_FILE_TYPES = ['application/json', 'image/png', 'image/webp'];

/** The same workflow graph: the same node ids with the same classes (values may differ). */
function sameNodes(a: JsonObject, b: JsonObject): boolean {
  const ids = Object.keys(a);
  if (ids.length !== Object.keys(b).length) return false;
  return ids.every((id) => {
    const x = a[id];
    const y = b[id];
    return isJsonObject(x) && isJsonObject(y) && x['class_type'] === y['class_type'];
  });
}

export type SeedMode = 'fixed' | 'random' | 'increment';

const ALL_INPUTS_KEY = 'flowdeck.run.allInputs';

function readAllInputs(): boolean {
  try {
    return globalThis.localStorage?.getItem(ALL_INPUTS_KEY) === 'true';
  } catch {
    return false;
  }
}

export class RunStore {
  doc = $state.raw<OpenDocument | null>(null);
  notice = $state<Notice | null>(null);
  opening = $state(false);
  submitting = $state(false);
  repeat = $state(1);
  newSeedEachRepeat = $state(true);
  /** What happens to the seeds after each run: kept, a new random one, or one more (the editor's "control after generate"). */
  seedMode = $state<SeedMode>('fixed');
  /** Set when a run starts from the form: the Result stage follows the newest job again. */
  lastRunAt = $state(0);
  #allInputs = $state(readAllInputs());
  /** "All inputs": the whole graph, node by node, instead of the app; remembered for the next start. */
  get allInputs(): boolean {
    return this.#allInputs;
  }
  set allInputs(on: boolean) {
    this.#allInputs = on;
    try {
      globalThis.localStorage?.setItem(ALL_INPUTS_KEY, String(on));
    } catch {
      // Storage refused: the choice lasts for this session.
    }
  }
  /** The app as arranged (kept by the core, or the file's linearData), where it came from, and saving it. */
  readonly appLayout: AppArrangement;
  /** Where the runs go: the active server, or the pool set in Servers (only while one is set). */
  target = $state<RunTarget>('active');
  groups: NodeGroup[] = $derived.by(() => this.#buildGroups());
  unknownNodes = $derived(this.groups.filter((g) => !g.known));
  /** Image inputs that take an uploaded file (LoadImage's `image`): where a library image can go. */
  imageFields = $derived(this.groups.flatMap((g) => g.fields).filter((f) => f.spec?.kind === 'combo' && f.spec.imageUpload && f.source.kind !== 'link'));
  /** The inputs the app shows, in order. */
  app: AppInput[] = $derived.by(() => this.appLayout.pins ?? proposeApp(this.groups));
  appFields = $derived(appFields(this.groups, this.app));
  seedFields = $derived(this.groups.flatMap((g) => g.fields).filter((f) => f.spec?.kind === 'int' && f.spec.seed && f.source.kind !== 'link'));

  readonly #api: Api;
  readonly definitions: DefinitionsStore;
  readonly #jobs: JobsStore;
  readonly #nav: Navigation;
  readonly #recent: RecentStore;
  readonly #poolIsSet: () => boolean;

  constructor(api: Api, definitions: DefinitionsStore, jobs: JobsStore, nav: Navigation, recent: RecentStore, poolIsSet: () => boolean = () => false) {
    this.#api = api;
    this.definitions = definitions;
    this.#jobs = jobs;
    this.#nav = nav;
    this.#recent = recent;
    this.#poolIsSet = poolIsSet;
    this.appLayout = new AppArrangement(api, (notice) => (this.notice = notice));
  }

  /**
   * A workflow is open: its app is its file's or the one kept for it (see AppArrangement), else a
   * proposed one. `file`: the UI file on disk it came from (the app can be saved into it).
   */
  #adopt(doc: OpenDocument, file: { path: string; hash: string } | null = null): void {
    this.doc?.dispose();
    this.doc = doc;
    this.appLayout.adopt(doc, file);
  }

  isPinned(field: FormField): boolean {
    return this.app.some((i) => i.nodeId === field.nodeId && i.name === field.name);
  }

  /** Pins an input to the app (at its end) or takes it off; kept for this workflow. */
  togglePin(field: FormField): void {
    const next = this.isPinned(field)
      ? this.app.filter((i) => !(i.nodeId === field.nodeId && i.name === field.name))
      : [...this.app, { nodeId: field.nodeId, name: field.name }];
    this.#arrange(next);
  }

  /** Moves an app input up (-1) or down (+1). */
  move(field: FormField, delta: -1 | 1): void {
    const list = [...this.app];
    const at = list.findIndex((i) => i.nodeId === field.nodeId && i.name === field.name);
    const to = at + delta;
    if (at < 0 || to < 0 || to >= list.length) return;
    [list[at], list[to]] = [list[to]!, list[at]!];
    this.#arrange(list);
  }

  #arrange(inputs: AppInput[]): void {
    this.appLayout.arrange(inputs);
  }

  /** The target a run goes to now: the pool only while one is set (it may have been emptied since it was chosen). */
  get effectiveTarget(): RunTarget {
    return this.target === 'pool' && this.#poolIsSet() ? 'pool' : 'active';
  }

  #buildGroups(): NodeGroup[] {
    return this.doc ? buildForm(this.doc.workflow, this.definitions.classes) : [];
  }

  /** A file picked in the dialog or dropped on the window: a workflow (.json) or an image carrying one. */
  async openFile(file: File): Promise<void> {
    if (!WORKFLOW_FILE_NAME.test(file.name) && !WORKFLOW_FILE_TYPES.includes(file.type)) {
      this.notice = {
        tone: 'error',
        title: 'Not a workflow file',
        message: `"${file.name}" is neither a workflow (.json) nor an image that can carry one (.png, .webp).`,
      };
      return;
    }
    if (file.size > MAX_WORKFLOW_FILE_BYTES) {
      this.notice = { tone: 'error', title: 'Not a workflow file', message: `"${file.name}" is larger than 50 MB; that is not a workflow.` };
      return;
    }
    // Main tells the kinds apart by content (an image's chunks, API or UI JSON).
    await this.#open(async () => this.#api.call('workflow.open', { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) }));
  }

  /** "Open workflow" on a library item: the workflow its image carries, else the one recorded with it. */
  openLibraryItem(libraryId: number): Promise<void> {
    this.#nav.go('run');
    return this.#open(() => this.#api.call('workflow.open', { libraryId }));
  }

  /** The system file dialog (desktop app): the file is opened by path and remembered as recent. */
  openWithDialog(): Promise<void> {
    return this.#open(() => this.#api.call('workflow.open'));
  }

  /** A file from the recent list. */
  openPath(path: string): Promise<void> {
    return this.#open(() => this.#api.call('workflow.open', { path }));
  }

  /** A template of the active server's gallery ("New from template"), opened as its file would be. */
  openTemplate(source: string, name: string): Promise<void> {
    this.#nav.go('run');
    return this.#open(() => this.#api.call('templates.open', { source, name }));
  }

  async #open(read: () => Promise<CallResult<'workflow.open'>>): Promise<void> {
    this.opening = true;
    try {
      const result = await read();
      if (!result.opened || !result.parse) return;
      const outcome = interpretParse(result.name ?? 'workflow', result.path, result.parse);
      if (outcome instanceof OpenDocument) {
        const fromDisk = result.path && result.fileHash && result.parse.format === 'ui' ? { path: result.path, hash: result.fileHash } : null;
        this.#adopt(outcome, fromDisk);
        this.notice = openedNotice(outcome.name, result.parse);
      } else {
        this.notice = outcome;
      }
      void this.#recent.refresh();
    } catch (error) {
      this.notice = { tone: 'error', title: 'The workflow could not be opened', message: messageOf(error) };
    } finally {
      this.opening = false;
    }
  }

  /** "Run again" from the library: the workflow as it was submitted, labelled, ready to run. */
  openFromLibrary(label: string, workflowJson: string): void {
    this.openRecorded(label, workflowJson, 'library');
  }

  /**
   * A workflow as it was submitted (the library's "Run again", the History view's "Open in Run"),
   * read exactly (64-bit seeds keep every digit), its inputs as they were for that run.
   */
  openRecorded(label: string, workflowJson: string, from: 'library' | 'history' | 'job'): void {
    let workflow: JsonValue;
    try {
      workflow = parseJsonExact(workflowJson);
    } catch (error) {
      workflow = null;
      console.warn('flowdeck: a library workflow is not JSON', error);
    }
    this.#nav.go('run');
    if (!isJsonObject(workflow)) {
      this.notice = { tone: 'error', title: 'The workflow could not be loaded', message: `The workflow recorded with "${label}" is not a workflow object.` };
      return;
    }
    this.#adopt(new OpenDocument(label, null, workflow));
    const source = from === 'job' ? 'job' : `the ${from}`;
    this.notice = {
      tone: 'info',
      title: `Loaded "${label}" from ${from === 'job' ? 'the job' : source}`,
      message: 'The inputs are as they were for that run. Press Run to run it again.',
    };
  }

  /**
   * "Reuse parameters": a job's values back into the form. When the open workflow is the job's
   * (the same nodes), its fields take the job's values (a 2^64-1 seed exactly, as text) and keep
   * everything else the form holds; otherwise the job's workflow opens as it was submitted.
   */
  reuse(label: string, workflow: JsonObject): void {
    const doc = this.doc;
    if (!doc || !sameNodes(doc.workflow, workflow)) {
      this.openRecorded(label, stringifyJsonExact(workflow), 'job');
      return;
    }
    let count = 0;
    for (const field of this.groups.flatMap((g) => g.fields)) {
      if (field.source.kind === 'link') continue;
      const node = workflow[field.nodeId];
      const value = isJsonObject(node) && isJsonObject(node['inputs']) ? node['inputs'][field.name] : undefined;
      if (value === undefined || value === null || Array.isArray(value) || isJsonObject(value)) continue;
      doc.setDraft(field.nodeId, field.name, draftOf(value));
      count += 1;
    }
    this.seedMode = 'fixed';
    this.#nav.go('run');
    this.notice = {
      tone: 'info',
      title: 'Parameters reused',
      message: `${count} inputs are as they were for "${label}". The seed stays fixed until you change it.`,
    };
  }

  /**
   * A file already uploaded (a library output, "use as input image") into an image input, shown by
   * `thumbnail` (a URL the caller keeps alive; default the upload's own).
   */
  useUploaded(field: FormField, result: UploadView, thumbnail: string | null = result.thumbnailDataUrl): void {
    const doc = this.doc;
    if (!doc) return;
    const key = fieldKey(field.nodeId, field.name);
    const previous = doc.uploads.get(key);
    if (previous?.ownsUrl && previous.thumbnail) URL.revokeObjectURL(previous.thumbnail);
    doc.uploads.set(key, { value: result.inputValue, thumbnail, ownsUrl: false });
    uploadNames.remember(result.inputValue, result.originalName);
    doc.setDraft(field.nodeId, field.name, result.inputValue);
  }

  /** A random value for an integer input (a seed) of `doc` (the open workflow's by default). */
  randomize(field: FormField, doc: OpenDocument | null = this.doc): void {
    if (!doc || field.spec?.kind !== 'int') return;
    const min = field.spec.min ?? 0n;
    const max = field.spec.max ?? UINT64_MAX;
    const value = randomBigIntInRange(min, max, (bytes) => crypto.getRandomValues(bytes));
    doc.setDraft(field.nodeId, field.name, value.toString());
  }

  /** The seed after a run: random, or the one after (wrapping at the input's maximum), exactly. */
  #nextSeed(field: FormField, how: 'random' | 'increment'): void {
    const doc = this.doc;
    if (!doc || field.spec?.kind !== 'int') return;
    if (how === 'random') return this.randomize(field);
    const min = field.spec.min ?? 0n;
    const max = field.spec.max ?? UINT64_MAX;
    const key = fieldKey(field.nodeId, field.name);
    const draft = doc.drafts.get(key) ?? initialDraft(field);
    const current = typeof draft === 'string' ? toBigInt(draft) : null;
    const next = current === null || current >= max ? min : current + 1n;
    doc.setDraft(field.nodeId, field.name, next.toString());
  }

  async upload(field: FormField, file: File): Promise<void> {
    const doc = this.doc;
    if (!doc) return;
    const key = fieldKey(field.nodeId, field.name);
    try {
      const result = await this.#api.call('upload.image', { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) });
      if (!result) return;
      const previous = doc.uploads.get(key);
      if (previous?.ownsUrl && previous.thumbnail) URL.revokeObjectURL(previous.thumbnail);
      const thumbnail = result.thumbnailDataUrl ?? URL.createObjectURL(file);
      doc.uploads.set(key, { value: result.inputValue, thumbnail, ownsUrl: result.thumbnailDataUrl === null, file });
      uploadNames.remember(result.inputValue, result.originalName ?? file.name);
      doc.setDraft(field.nodeId, field.name, result.inputValue);
    } catch (error) {
      const routed = routeError(error);
      if (routed.kind === 'key') this.#nav.askForKey(routed.message);
      doc.fieldErrors.set(key, `The upload failed: ${routed.message}`);
    }
  }

  /**
   * The mask painter saved: the input names the masked file, shown by `thumbnail` (the image with
   * the mask taken out, a data URL) or else the original's thumbnail.
   */
  useMasked(field: FormField, result: MaskSaveResult, thumbnail: string | null = null): void {
    const doc = this.doc;
    if (!doc) return;
    const key = fieldKey(field.nodeId, field.name);
    const previous = doc.uploads.get(key);
    if (thumbnail && previous?.ownsUrl && previous.thumbnail) URL.revokeObjectURL(previous.thumbnail);
    // No `file`: the picked file is the unmasked original; re-opening reads the masked one.
    doc.uploads.set(
      key,
      thumbnail
        ? { value: result.inputValue, thumbnail, ownsUrl: false }
        : { value: result.inputValue, thumbnail: previous?.thumbnail ?? null, ownsUrl: previous?.ownsUrl ?? false },
    );
    uploadNames.remember(result.inputValue, result.masked.originalName);
    doc.setDraft(field.nodeId, field.name, result.inputValue);
  }

  /** Checks the form, then submits the workflow `repeat` times. Returns the new job ids. */
  async run(): Promise<string[]> {
    const doc = this.doc;
    if (!doc || this.submitting) return [];
    doc.clearProblems();
    this.notice = null;
    const target = this.effectiveTarget;
    // On the pool, main names what each server lacks; the active server's definitions do not decide.
    if (target === 'active' && this.unknownNodes.length > 0) {
      for (const g of this.unknownNodes) doc.nodeErrors.set(g.id, `The server has no node class "${g.classType}".`);
      const list = this.unknownNodes.map((g) => `node ${g.id} (${g.classType})`).join(', ');
      this.notice = {
        tone: 'error',
        title: 'Unknown node classes',
        message: `The active server does not know ${list}. Install the nodes on the server or pick another server.`,
      };
      return [];
    }
    const repeat = Math.max(1, Math.min(100, Math.trunc(this.repeat) || 1));
    const freshSeeds = repeat > 1 && this.newSeedEachRepeat && this.seedFields.length > 0;
    this.submitting = true;
    const ids: string[] = [];
    let waiting = 0;
    // The runs of one "Repeat" are shown as one group in Jobs.
    const batch = repeat > 1 ? { id: crypto.randomUUID(), count: repeat } : undefined;
    try {
      // With fresh seeds each repeat is its own submission (the same workflow twice would be
      // served from the server's cache); otherwise main submits the copies.
      for (let i = 0; i < (freshSeeds ? repeat : 1); i += 1) {
        if (i > 0) for (const field of this.seedFields) this.#nextSeed(field, this.seedMode === 'increment' ? 'increment' : 'random');
        const submitted = await this.#submitOnce(doc, freshSeeds ? 1 : repeat, target, batch);
        if (!submitted) break;
        ids.push(...submitted.promptIds);
        waiting += submitted.waiting ?? 0;
      }
      if (ids.length > 0) {
        this.lastRunAt = Date.now();
        if (this.seedMode !== 'fixed') for (const field of this.seedFields) this.#nextSeed(field, this.seedMode);
      }
    } finally {
      this.submitting = false;
    }
    if (waiting > 0 && this.notice === null) {
      this.notice = {
        tone: 'info',
        title: `${waiting} ${waiting === 1 ? 'run waits' : 'runs wait'} for room on the pool`,
        message: 'Every pool server that can run this workflow is busy. The waiting runs start as servers free up, and appear in Jobs then.',
      };
    }
    return ids;
  }

  async #submitOnce(doc: OpenDocument, repeat: number, target: RunTarget, batch?: { id: string; count: number }): Promise<CallResult<'run.submit'> | null> {
    const fields = this.groups.flatMap((g) => g.fields);
    const { workflow, problems } = applyDrafts(doc.workflow, fields, doc.drafts);
    if (problems.length > 0) {
      for (const p of problems) doc.fieldErrors.set(fieldKey(p.nodeId, p.input), p.message);
      this.notice = { tone: 'error', title: 'Some inputs need attention', message: `${problems.length} input(s) are marked in the form below.` };
      return null;
    }
    try {
      const ui = doc.uiWorkflowJson === null ? {} : { uiWorkflowJson: doc.uiWorkflowJson };
      // No target for the active server: the call is exactly what it was before pools.
      const where = target === 'pool' ? { target } : {};
      const submitted = await this.#api.call('run.submit', { workflowJson: stringifyJsonExact(workflow), repeat, label: doc.name, ...ui, ...where });
      const { promptIds } = submitted;
      const nodeNames = Object.fromEntries(this.groups.map((g) => [g.id, g.displayName]));
      const inputImages = this.imageFields.flatMap((f) => {
        const node = workflow[f.nodeId];
        const value = isJsonObject(node) && isJsonObject(node['inputs']) ? node['inputs'][f.name] : undefined;
        return typeof value === 'string' && value !== '' ? [value] : [];
      });
      for (const id of promptIds) this.#jobs.remember(id, { nodeNames, inputImages, workflow, ...(batch ? { batch } : {}) });
      return submitted;
    } catch (error) {
      this.#report(doc, error);
      return null;
    }
  }

  #report(doc: OpenDocument, error: unknown): void {
    const routed = routeError(error);
    switch (routed.kind) {
      case 'key':
        this.notice = { tone: 'error', title: 'The API key was not accepted', message: routed.message };
        this.#nav.askForKey(routed.message);
        return;
      case 'billing':
        this.notice = { tone: 'error', title: routed.title, message: routed.message };
        return;
      case 'rejected': {
        let placed = 0;
        for (const e of routed.details?.nodeErrors ?? []) {
          if (e.inputName) doc.fieldErrors.set(fieldKey(e.nodeId, e.inputName), e.message);
          else doc.nodeErrors.set(e.nodeId, e.message);
          placed += 1;
        }
        const summary = placed > 0 ? `The server rejected the workflow; the inputs it named are marked in the form below.` : routed.message;
        this.notice = { tone: 'error', title: 'The server rejected the workflow', message: summary };
        return;
      }
      default:
        this.notice = { tone: 'error', title: 'The workflow could not be submitted', message: routed.message };
    }
  }
}
