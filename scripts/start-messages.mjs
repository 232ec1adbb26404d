// What `npm start` says when the Electron binary is unavailable, from what the electron package
// printed. Its own advice ("Electron failed to install correctly, delete node_modules/electron and
// reinstall") is wrong here (the install is fine; the binary is fetched on first launch and that
// download failed), so it is never repeated: the reason is said plainly instead.
const NETWORK = /fetch failed|ENOTFOUND|ECONNREFUSED|ECONNRESET|EAI_AGAIN|ETIMEDOUT|getaddrinfo|socket hang up|certificate/i;

/** A short, plain reason the Electron binary is not available, from the probe's output. */
export function electronProblem(output) {
  if (NETWORK.test(output)) return 'Electron fetches its binary on first launch, and that download could not reach its server from this machine.';
  if (/Cannot find module 'electron'/.test(output)) return 'The electron package is not installed.';
  return 'The electron package could not provide its binary on this machine.';
}
