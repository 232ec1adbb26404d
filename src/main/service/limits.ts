// Every size cap and deadline of the network layer in one place, with the environment variables
// that change them (README: "Limits and deadlines"). A hostile or broken server must never make
// this process read without bound or wait without end: each body read is capped by what it is
// for, and each wait has a deadline measured in seconds.

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export interface ServiceLimits {
  /** Error bodies (non-2xx): only the server's reason is shown, so the rest is dropped. */
  errorBodyBytes: number;
  /** /api/object_info: every node class with its inputs; large installs reach ~10 MiB. */
  objectInfoBytes: number;
  /** Other JSON answers (submit, upload, queue, history, job status). */
  jsonAnswerBytes: number;
  /** One downloaded output file (FLOWDECK_MAX_OUTPUT_MB); well above real video sizes. */
  outputBytes: number;
  /** A download slower than this over `throughputWindowMs` is aborted (FLOWDECK_MIN_DOWNLOAD_KBPS). */
  minBytesPerSecond: number;
  throughputWindowMs: number;
  /** Connecting plus the answer's headers and JSON body, per attempt (FLOWDECK_ANSWER_TIMEOUT). */
  answerTimeoutMs: number;
  /** The same for /api/object_info, which a large install takes longer to build. */
  objectInfoTimeoutMs: number;
  /** After this long without an answer, the CLI says what it waits for. */
  waitNoticeMs: number;
  /** A job whose server answers nothing (socket gone, every poll failing) for this long is given up (FLOWDECK_UNREACHABLE_AFTER). */
  unreachableAfterMs: number;
}

export const DEFAULT_LIMITS: ServiceLimits = {
  errorBodyBytes: 1 * MiB,
  objectInfoBytes: 64 * MiB,
  jsonAnswerBytes: 8 * MiB,
  outputBytes: 8 * GiB,
  minBytesPerSecond: 16 * 1024,
  throughputWindowMs: 30_000,
  answerTimeoutMs: 15_000,
  objectInfoTimeoutMs: 30_000,
  waitNoticeMs: 2_000,
  unreachableAfterMs: 30_000,
};

function positive(env: NodeJS.ProcessEnv, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** The limits with the environment's overrides (malformed values are ignored, not fatal). */
export function serviceLimits(env: NodeJS.ProcessEnv = process.env): ServiceLimits {
  const limits = { ...DEFAULT_LIMITS };
  const outputMb = positive(env, 'FLOWDECK_MAX_OUTPUT_MB');
  if (outputMb !== null) limits.outputBytes = Math.floor(outputMb * MiB);
  const kbps = positive(env, 'FLOWDECK_MIN_DOWNLOAD_KBPS');
  if (kbps !== null) limits.minBytesPerSecond = Math.floor(kbps * 1024);
  const window = positive(env, 'FLOWDECK_MIN_DOWNLOAD_WINDOW');
  if (window !== null) limits.throughputWindowMs = window * 1000;
  const answer = positive(env, 'FLOWDECK_ANSWER_TIMEOUT');
  if (answer !== null) {
    limits.answerTimeoutMs = answer * 1000;
    limits.objectInfoTimeoutMs = Math.max(answer * 1000, Math.min(limits.objectInfoTimeoutMs, answer * 2000));
  }
  const unreachable = positive(env, 'FLOWDECK_UNREACHABLE_AFTER');
  if (unreachable !== null) limits.unreachableAfterMs = unreachable * 1000;
  return limits;
}

/** "64 MiB", "512 KiB": for messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= GiB && bytes % GiB === 0) return `${bytes / GiB} GiB`;
  if (bytes >= MiB) return `${Math.round((bytes / MiB) * 10) / 10} MiB`;
  return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
}
