// The upload limits a server sets (bytes, pixels per side, pixels in all) and why a file would be
// refused by them, in words for the user. Images and the service both check against them, so
// they live below both.
/** The cloud's documented upload limits (PROTOCOL.md "Uploads"); larger images get a 400. */
export const CLOUD_UPLOAD_LIMITS: UploadLimits = { maxBytes: 50 * 1000 * 1000, maxEdgePx: 16384, maxPixels: 64 * 1024 * 1024 };
/** The local server's default max_upload_size (100 MB) and no pixel limits of its own. */
export const LOCAL_UPLOAD_LIMITS: UploadLimits = { maxBytes: 100 * 1024 * 1024, maxEdgePx: null, maxPixels: null };

export interface UploadLimits {
  maxBytes: number;
  /** Largest width or height in pixels; null when the server has none. */
  maxEdgePx: number | null;
  /** Largest width x height; null when the server has none. */
  maxPixels: number | null;
}

/** The size of an image about to be uploaded; width and height null when the header did not tell. */
export interface UploadCandidate {
  name: string;
  bytes: number;
  width: number | null;
  height: number | null;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Why the server would refuse this upload, in words for the user; null when it is within the limits. */
export function uploadLimitProblem(limits: UploadLimits, file: UploadCandidate): string | null {
  if (file.bytes > limits.maxBytes) {
    return `${file.name} is ${megabytes(file.bytes)}; the server accepts at most ${megabytes(limits.maxBytes)} per file. Use a smaller or more compressed file.`;
  }
  const { width, height } = file;
  if (width === null || height === null) return null;
  if (limits.maxEdgePx !== null && (width > limits.maxEdgePx || height > limits.maxEdgePx)) {
    return `${file.name} is ${width}x${height} pixels; the server accepts at most ${limits.maxEdgePx} pixels per side. Scale it down first.`;
  }
  if (limits.maxPixels !== null && width * height > limits.maxPixels) {
    const mp = (n: number): string => `${(n / (1024 * 1024)).toFixed(1)} megapixels`;
    return `${file.name} is ${width}x${height} pixels (${mp(width * height)}); the server accepts at most ${mp(limits.maxPixels)}. Scale it down first.`;
  }
  return null;
}
