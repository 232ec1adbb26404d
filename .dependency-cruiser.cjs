// The layer rule, stated once: each layer imports only from the layers before it (and itself);
// nothing imports back what imports it, and no import cycle exists anywhere under src/.
// `npm run lint:layers` (part of `npm test`) fails on any import against this order.
//
//   shared <- config, files, images, store <- service <- workflow, demo <- jobs <- library, pool
//          <- watch <- app, cli <- electron <- src/main/index.ts (the Electron entry)
// The renderer and the preload see only shared/.
const layers = [
  ['shared'],
  ['config', 'files', 'images', 'store'],
  ['service'],
  ['workflow', 'demo'],
  ['jobs'],
  ['library', 'pool'],
  ['watch'],
  ['app', 'cli'],
  ['electron'],
  ['index'],
];

/** A path pattern for a layer name: the main process's folders, or the top-level ones. */
function pathOf(name) {
  if (name === 'shared') return '^src/shared/';
  if (name === 'cli') return '^src/cli/';
  if (name === 'index') return '^src/main/index\\.ts$';
  return `^src/main/${name}/`;
}

const upward = [];
layers.forEach((group, rank) => {
  const later = layers.slice(rank + 1).flat();
  for (const name of group) {
    const siblings = group.filter((other) => other !== name);
    const forbidden = [...later, ...siblings];
    if (forbidden.length === 0) continue;
    upward.push({
      name: `layer-${name}`,
      comment: `${name} may import only from the layers before it: ${layers.slice(0, rank).flat().join(', ') || 'none'}`,
      severity: 'error',
      from: { path: pathOf(name) },
      to: { path: forbidden.map(pathOf) },
    });
  }
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: split the shared part into a module both can import.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'renderer-sees-only-shared',
      comment: 'The renderer talks to main only through the IPC contract in src/shared.',
      severity: 'error',
      from: { path: '^src/(renderer|preload)/' },
      to: { path: '^src/(main|cli)/' },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle of types is still a cycle for whoever reads the code.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.svelte', '.json'] },
  },
};
