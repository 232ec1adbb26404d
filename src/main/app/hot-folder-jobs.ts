// Which jobs the hot folders sent. The app records every finished job's outputs in the library,
// except these: a hot folder imports its outputs itself, with the input file as their source. The
// ids come from the hot-folder journal when the app starts (jobs of an earlier run, which the job
// tracker may follow again before the folders are running) and from every job a folder follows.
import type { JobFollower } from '../watch';

export class HotFolderJobs {
  private readonly ids = new Set<string>();

  has(promptId: string): boolean {
    return this.ids.has(promptId);
  }

  add(promptIds: Iterable<string>): void {
    for (const id of promptIds) this.ids.add(id);
  }

  /** `follower`, noting each job it is asked to follow before following it. */
  follower(follower: JobFollower): JobFollower {
    return {
      follow: (promptId, meta) => {
        this.ids.add(promptId);
        return follower.follow(promptId, meta);
      },
    };
  }
}
