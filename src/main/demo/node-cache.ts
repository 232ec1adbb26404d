// The local server's output cache: a node whose class, widget values and upstream nodes are the
// same as in the previous job is not run again; its outputs (and UI outputs) are reused. Like the
// real server's default cache, only the nodes of the latest job are kept. Files referenced by
// upload combos (LoadImage's image) count by size and modification time, as their content hash
// does on the real server.
import { createHash } from 'node:crypto';
import { stringifyJsonExact, type JsonObject } from '@shared/json';
import { asLink, classTypeOf, nodeInputs } from './graph';
import type { DemoNode, NodeResult } from './node-api';
import { inputSpecs, isUploadCombo } from './node-defs';

export class NodeCache {
  private entries = new Map<string, NodeResult>();

  /** A signature per node of `order` (which lists every node after its inputs). */
  signatures(prompt: JsonObject, order: readonly string[], nodes: Map<string, DemoNode>, inputStamp: (name: string) => string): Map<string, string> {
    const sigs = new Map<string, string>();
    for (const id of order) {
      const classType = classTypeOf(prompt, id);
      const uploads = new Set(
        inputSpecs(nodes.get(classType)?.definition ?? {})
          .filter(isUploadCombo)
          .map((s) => s.name),
      );
      const parts: unknown[] = [classType];
      for (const [name, value] of Object.entries(nodeInputs(prompt, id)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const link = asLink(value);
        if (link) parts.push([name, 'link', sigs.get(link.node) ?? link.node, link.slot]);
        else if (uploads.has(name) && typeof value === 'string') parts.push([name, value, inputStamp(value)]);
        else parts.push([name, value]);
      }
      sigs.set(id, createHash('sha256').update(stringifyJsonExact(parts)).digest('hex'));
    }
    return sigs;
  }

  get(signature: string): NodeResult | undefined {
    return this.entries.get(signature);
  }

  set(signature: string, result: NodeResult): void {
    this.entries.set(signature, result);
  }

  /** Keeps only the entries of the job that just ran. */
  retainOnly(signatures: Iterable<string>): void {
    const keep = new Set(signatures);
    for (const sig of [...this.entries.keys()]) if (!keep.has(sig)) this.entries.delete(sig);
  }
}
