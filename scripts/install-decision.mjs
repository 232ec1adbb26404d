// The decision behind scripts/install.mjs, with no side effects (tested in tests/scripts).
//
// Native modules (sqlite3, keytar) fall back to a source build where no prebuilt binary can be
// fetched, and node-gyp then downloads Node's headers, which fails on a machine that reaches only
// the npm registry. A distribution's Node often ships those headers (Debian: /usr/include/node);
// pointing npm_config_nodedir at them makes the build work offline. npm 11 ignores `nodedir` in
// the user's .npmrc, so the environment variable is the one way; it is set only when the headers
// found are for exactly this Node version (headers of another version build a module that does
// not load), and never over a value the user set.

/** The version in a node_version.h text ("20.20.2"), or null. */
export function headerVersion(text) {
  const part = (name) => new RegExp(`#define\\s+NODE_${name}_VERSION\\s+(\\d+)`).exec(text)?.[1];
  const [major, minor, patch] = [part('MAJOR'), part('MINOR'), part('PATCH')];
  return major && minor && patch ? `${major}.${minor}.${patch}` : null;
}

/**
 * Which nodedir to give npm, if any.
 * env: the environment npm will see; nodeVersion: process.versions.node;
 * candidates: install prefixes in order of preference, each with the version of the headers under
 * <prefix>/include/node (null when there are none).
 */
export function chooseNodedir({ env, nodeVersion, candidates }) {
  const preset = env.npm_config_nodedir || env.NPM_CONFIG_NODEDIR;
  if (preset) return { nodedir: null, reason: `npm_config_nodedir is already set (${preset}); left as it is.` };
  const match = candidates.find((c) => c.version === nodeVersion);
  if (match)
    return {
      nodedir: match.prefix,
      reason: `Node ${nodeVersion}'s headers are in ${match.prefix}/include/node: native modules build against them, nothing to download.`,
    };
  const other = candidates.find((c) => c.version !== null);
  const note = other ? ` (${other.prefix}/include/node holds ${other.version}'s, which would not match)` : '';
  return { nodedir: null, reason: `No local headers for Node ${nodeVersion}${note}: npm uses prebuilt binaries, or downloads the headers.` };
}
