// Hot folders: public API for the app core and the CLI.
export { HotFolderService, HotFolderNotFoundError, type HotFolderServiceDeps, type AddOptions } from './service';
export {
  resolveHotFolderConfig,
  hotFolderInputSchema,
  HotFolderConfigError,
  DEFAULT_PATTERNS,
  DEFAULT_MASK_RULE,
  DEFAULT_OUTPUT_NAME,
  type HotFolderConfig,
  type HotFolderInput,
  type RetryPolicyConfig,
} from './config';
export { trackerFollower, type TrackerLike } from '../jobs/job-follower';
export { SIDECAR_SUFFIX } from './deliver';
export { librarySink, importRequestOf, type LibraryImporter } from './library-sink';
export type { IdleReason } from './runner-deps';
export type * from './types';
