// Job state shown outside the window: the taskbar/dock progress bar while jobs run, and a native
// notification when a job succeeds or fails while the window is not focused.
import { Notification, type BrowserWindow } from 'electron';
import type { JobSnapshotView } from '@shared/ipc/contract';
import type { AppCore } from '@main/app/ports';

export function attachJobIndicators(core: AppCore, win: BrowserWindow): () => void {
  const active = new Map<string, JobSnapshotView>();

  const updateProgress = (): void => {
    if (win.isDestroyed()) return;
    if (active.size === 0) {
      win.setProgressBar(-1);
      return;
    }
    const known = [...active.values()].map((j) => j.overall).filter((v): v is number => v !== null);
    // Nothing measurable yet: an indeterminate bar (values above 1).
    if (known.length === 0) win.setProgressBar(2, { mode: 'indeterminate' });
    else win.setProgressBar(known.reduce((a, b) => a + b, 0) / active.size, { mode: 'normal' });
  };

  const notify = (job: JobSnapshotView): void => {
    if (!Notification.isSupported() || win.isDestroyed() || win.isFocused()) return;
    const ok = job.phase === 'succeeded';
    const body = ok ? `${job.outputs.length} output${job.outputs.length === 1 ? '' : 's'} ready.` : (job.error?.message ?? 'The job failed.').slice(0, 200);
    const notification = new Notification({ title: `${job.label}: ${ok ? 'done' : 'failed'}`, body, silent: false });
    notification.on('click', () => {
      if (win.isDestroyed()) return;
      if (win.isMinimized()) win.restore();
      win.show();
      win.focus();
    });
    notification.show();
  };

  const off = core.onEvent((event) => {
    if (event.name !== 'job.update') return;
    const job = event.payload;
    if (job.phase === 'pending' || job.phase === 'running') {
      active.set(job.promptId, job);
    } else if (active.delete(job.promptId) && (job.phase === 'succeeded' || job.phase === 'failed')) {
      // Only jobs seen in flight in this run: reconciling old ones at start is not news.
      notify(job);
    }
    updateProgress();
  });

  return () => {
    off();
    if (!win.isDestroyed()) win.setProgressBar(-1);
  };
}
