/**
 * pnpm's hook on package manifests, as they are resolved. `@trpc/server` and `cosmiconfig` name
 * TypeScript as a peer for their types and for `.ts` configuration files, which the server never
 * reads at run time: without this the server's production install (the container image) carries
 * the TypeScript compiler (23 MB). Development keeps it, as the workspace's own devDependency.
 */
const TYPES_ONLY = new Set(['@trpc/server', 'cosmiconfig']);

module.exports = {
  hooks: {
    readPackage(pkg) {
      if (TYPES_ONLY.has(pkg.name) && pkg.peerDependencies?.typescript) {
        delete pkg.peerDependencies.typescript;
        if (pkg.peerDependenciesMeta) delete pkg.peerDependenciesMeta.typescript;
      }
      return pkg;
    },
  },
};
