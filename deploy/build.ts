/**
 * `npm run build`: compiles every process to one JavaScript file under dist/ (dist/gateway.js,
 * dist/identity.js, ...), plus the production launcher dist/start.js that `npm start` runs. Our own
 * TypeScript (the workspaces) is bundled; every npm package stays an import resolved from node_modules at
 * run time, so native and dynamically loaded packages (the libsql driver, MikroORM's dialects) work as
 * installed. The output runs on plain `node`: no tsx, no esbuild at run time.
 *
 *   tsx deploy/build.ts [outdir]      (default dist/)
 */
import { rmSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { build, type Plugin } from "esbuild";
import { BUILT_ENTRY, ENTRY_POINTS, ROOT, type ProcessName } from "./processes.js";

/**
 * Bare imports of npm packages stay external; `@auth-platform/*` (our workspaces) and relative paths are
 * bundled. A workspace may hold its own copy of a package (services/runtime/node_modules/zod, when the
 * root's is another major version), so an import that resolves elsewhere than it would from the root is
 * written as a path to that copy, relative to the output file.
 */
function packagesExternal(outdir: string): Plugin {
  return {
    name: "packages-external",
    setup(context) {
      context.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith("@auth-platform/") || isAbsolute(args.path) || args.pluginData === "inner") return undefined;
        if (args.path.startsWith("node:")) return { path: args.path, external: true };
        const resolve = (resolveDir: string) => context.resolve(args.path, { resolveDir, kind: args.kind, pluginData: "inner" });
        const [here, fromRoot] = await Promise.all([resolve(args.resolveDir), resolve(ROOT)]);
        if (here.errors.length || here.external || here.path === fromRoot.path) return { path: args.path, external: true };
        const path = relative(outdir, here.path).split(sep).join("/");
        return { path: path.startsWith(".") ? path : `./${path}`, external: true };
      });
    },
  };
}

export async function buildPlatform(outdir = join(ROOT, "dist")): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  const entryPoints = Object.fromEntries([
    ...(Object.keys(ENTRY_POINTS) as ProcessName[]).map((name) => [BUILT_ENTRY[name].replace(/^dist\/|\.js$/g, ""), join(ROOT, ENTRY_POINTS[name])]),
    ["start", join(ROOT, "deploy/start.ts")],
  ]);
  await build({
    absWorkingDir: ROOT,
    entryPoints,
    outdir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    sourcemap: "linked",
    // Source-mapped stack traces in logs point at the TypeScript a developer reads.
    banner: { js: "process.setSourceMapsEnabled?.(true);" },
    plugins: [packagesExternal(outdir)],
    logLevel: "warning",
  });
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(ROOT, "deploy/build.ts")) {
  const outdir = process.argv[2] ? resolve(process.argv[2]) : undefined;
  await buildPlatform(outdir);
  console.log(`built ${outdir ?? join(ROOT, "dist")}`);
}
