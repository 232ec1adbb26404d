// The largest workflow file (JSON or image) that is read as a workflow, for the app's workflow.open
// and the CLI alike. Its own module, not the IPC contract's: importing the contract evaluates every
// IPC schema (~40 KB of zod), ~0.04 s of CPU at each `flowdeck watch` start for this one number.

/** Largest workflow file (JSON or image) workflow.open and the CLI read. */
export const MAX_WORKFLOW_FILE_BYTES = 50 * 1024 * 1024;
