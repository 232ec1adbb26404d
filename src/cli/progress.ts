// Job progress on stderr: a redrawn bar on a terminal, plain lines (one per change worth noting)
// when stderr is a file or a pipe, so logs of headless runs stay readable.
export interface ProgressView {
  phase: string;
  nodesDone: number;
  nodesTotal: number | null;
  currentNode: string | null;
  currentNodeClass: string | null;
  step: { value: number; max: number } | null;
  previews: number;
  text: string | null;
}

export interface ProgressReporter {
  update(view: ProgressView): void;
  line(message: string): void;
  done(): void;
}

function describe(view: ProgressView): string {
  const nodes = view.nodesTotal ? `${view.nodesDone}/${view.nodesTotal} nodes` : `${view.nodesDone} nodes done`;
  const node = view.currentNode ? ` · node ${view.currentNode}${view.currentNodeClass ? ` ${view.currentNodeClass}` : ''}` : '';
  const step = view.step && view.step.max > 0 ? ` step ${view.step.value}/${view.step.max}` : '';
  const previews = view.previews > 0 ? ` · ${view.previews} preview${view.previews === 1 ? '' : 's'}` : '';
  const text = view.text ? ` · ${view.text}` : '';
  return `${view.phase} · ${nodes}${node}${step}${previews}${text}`;
}

function bar(view: ProgressView, width: number): string {
  const total = view.nodesTotal ?? 0;
  const stepFraction = view.step && view.step.max > 0 ? view.step.value / view.step.max : 0;
  const fraction = total > 0 ? Math.min(1, (view.nodesDone + stepFraction) / total) : 0;
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}%`;
}

export function createProgressReporter(stream: NodeJS.WriteStream, quiet = false): ProgressReporter {
  if (quiet) return { update() {}, line() {}, done() {} };
  if (stream.isTTY) {
    let drawn = false;
    return {
      update(view) {
        const columns = stream.columns || 100;
        const text = `${bar(view, 24)} ${describe(view)}`.slice(0, columns - 1);
        stream.write(`\r\x1b[2K${text}`);
        drawn = true;
      },
      line(message) {
        stream.write(`${drawn ? '\r\x1b[2K' : ''}${message}\n`);
        drawn = false;
      },
      done() {
        if (drawn) stream.write('\n');
        drawn = false;
      },
    };
  }
  let last = '';
  return {
    update(view) {
      // Plain mode prints a line when the phase, node or preview count changes, not on every step.
      const key = `${view.phase}|${view.currentNode}|${view.nodesDone}|${view.previews}|${view.text}`;
      if (key === last) return;
      last = key;
      stream.write(`${describe(view)}\n`);
    },
    line(message) {
      stream.write(`${message}\n`);
    },
    done() {},
  };
}
