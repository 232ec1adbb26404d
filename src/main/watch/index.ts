// Hot folders: public API for the app core and the CLI.
export { HotFolderService, HotFolderNotFoundError } from './service';
export { resolveHotFolderConfig, HotFolderConfigError, type HotFolderConfig, type HotFolderInput } from './config';
export { trackerFollower } from '@main/jobs/job-follower';
export { librarySink, importRequestOf } from './library-sink';
export type * from './types';
