// Whether two base URLs name the same server (case and trailing slashes aside): the journal's
// jobs are settled only by a client of the server they were sent to.
export function sameBaseUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();
}
