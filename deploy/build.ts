/**
 * `npm run build`: compiles every process to one JavaScript file under dist/ (dist/gateway.js,
 * dist/identity.js, ...), plus the production launcher dist/start.js that `npm start` runs. The output runs
 * on plain `node`: no tsx, no esbuild at run time.
 *
 * Our own TypeScript and the npm packages are bundled together, tree-shaken and minified: a process loads
 * one file instead of hundreds of modules, which is most of its idle memory and start-up time
 * (bench/footprint.ts; docs/adr/0027-build-and-memory-footprint.md). Code only some configurations need (the PostgreSQL dialect,
 * the pg driver) is split into chunks under dist/chunks/, loaded on first use. Only packages that must be
 * loaded from node_modules at run time stay imports (EXTERNAL below). Two copies of the same version of a
 * package (zod in several workspaces) are bundled once.
 *
 *   tsx deploy/build.ts [outdir]      (default dist/)
 */
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { build, type Plugin } from "esbuild";
import { BUILT_ENTRY, ENTRY_POINTS, ROOT, type ProcessName, WEB_SERVER_SOURCE } from "./processes.js";

/**
 * Packages loaded from node_modules at run time, and why: an optional native driver, or files read beside
 * the package's own code (grpc-health-check reads its .proto at load). @grpc/proto-loader is required by
 * grpc-js only inside its channelz and ORCA services, which no process registers: bundled, it and
 * protobufjs under it were 140 KB of never-run source held in every process's memory. (sso's SAML
 * validator loads xmllint-wasm's files by path in its worker threads, so nothing bundles them.)
 */
const EXTERNAL = ["pg-native", "grpc-health-check", "@grpc/proto-loader"];

/** The package folder (holding package.json with a name) a resolved file belongs to. */
function packageRoot(file: string): { root: string; id: string } | undefined {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (manifest.name && manifest.version) return { root: dir, id: `${manifest.name}@${manifest.version}` };
    } catch {
      // no package.json here: look further up
    }
  }
  return undefined;
}

/**
 * The same version of a package installed at several places (services/runtime/node_modules/zod and
 * services/identity/node_modules/zod) resolves to the first copy seen, so it is bundled and run once.
 */
function onePerVersion(): Plugin {
  return {
    name: "one-copy-per-version",
    setup(context) {
      const first = new Map<string, string>();
      context.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === "inner" || args.path.startsWith("node:") || args.path.startsWith("@auth-platform/")) return undefined;
        const resolved = await context.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: "inner" });
        if (resolved.errors.length || resolved.external || !resolved.path.includes(`${sep}node_modules${sep}`)) return resolved.errors.length ? undefined : resolved;
        const owner = packageRoot(resolved.path);
        if (!owner) return resolved;
        const root = first.get(owner.id) ?? owner.root;
        first.set(owner.id, root);
        return { ...resolved, path: join(root, relative(owner.root, resolved.path)) };
      });
    },
  };
}

/**
 * Node's own modules are loaded with require(), never with an ES import: for an import, node wraps the
 * builtin in an ES module whose exports it reads all at once, and reading node:http's WebSocket,
 * CloseEvent and MessageEvent exports loads undici (node's fetch, 1 to 2 MiB of memory) into a process
 * that never fetches. Each import of a builtin becomes a CommonJS module of one require(), which
 * esbuild's interop reads property by property, when used.
 */
function builtinsByRequire(): Plugin {
  const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  return {
    name: "builtins-by-require",
    setup(context) {
      context.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
        args.kind === "import-statement" && builtins.has(args.path) ? { path: args.path, namespace: "builtin-by-require" } : undefined,
      );
      context.onLoad({ filter: /.*/, namespace: "builtin-by-require" }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: "js" }));
    },
  };
}

/**
 * MikroORM sorts the discovered entities by name with String.prototype.localeCompare at start-up, which
 * makes V8 load ICU's collation data (2.2 MiB of resident memory in every service) for names that are
 * plain ASCII identifiers. The two comparisons become code-point comparisons: the same order for our
 * entity names (PascalCase letters; the first difference between any two is never a case difference).
 * The build fails if MikroORM's code no longer has them, so an upgrade cannot drop this silently.
 */
function entitySortWithoutIcu(): Plugin {
  const patches = ["b.root.name.localeCompare(a.root.name)", "a.className.localeCompare(b.className)"];
  return {
    name: "entity-sort-without-icu",
    setup(context) {
      context.onLoad({ filter: /[\\/]@mikro-orm[\\/]core[\\/]metadata[\\/]MetadataDiscovery\.js$/ }, (args) => {
        let contents = readFileSync(args.path, "utf8");
        for (const call of patches) {
          if (!contents.includes(call)) throw new Error(`${args.path}: expected ${call} (deploy/build.ts entitySortWithoutIcu)`);
          const [left, right] = call.replace(/\)$/, "").split(".localeCompare(") as [string, string];
          contents = contents.replace(call, `(${left} < ${right} ? -1 : ${left} > ${right} ? 1 : 0)`);
        }
        return { contents, loader: "js" };
      });
    },
  };
}

/**
 * zod's namespace carries every locale's error messages (`z.locales`, 267 KB of source in each process's
 * start-up code, held in memory as the script's text). We answer in English only, which zod configures
 * itself from its own import of the English locale; the locales index keeps just that one. The build
 * fails if the index no longer exports it, so an upgrade cannot drop this silently.
 */
function zodLocalesEnglishOnly(): Plugin {
  const english = 'export { default as en } from "./en.js";';
  return {
    name: "zod-locales-english-only",
    setup(context) {
      context.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => {
        if (!readFileSync(args.path, "utf8").includes(english)) throw new Error(`${args.path}: expected ${english} (deploy/build.ts zodLocalesEnglishOnly)`);
        return { contents: english, loader: "js" };
      });
    },
  };
}

export async function buildPlatform(outdir = join(ROOT, "dist")): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  const entryPoints = Object.fromEntries([
    ...(Object.keys(ENTRY_POINTS) as ProcessName[]).map((name) => [
      BUILT_ENTRY[name].replace(/^dist\/|\.js$/g, ""),
      join(ROOT, name === "web" ? WEB_SERVER_SOURCE : ENTRY_POINTS[name]),
    ]),
    ["start", join(ROOT, "deploy/start.ts")],
  ]);
  await build({
    absWorkingDir: ROOT,
    entryPoints,
    outdir,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    // BUILD_NO_MINIFY=1 keeps identifiers, so a CPU profile of the build (BENCH_CPU_PROF) names its functions.
    minify: !process.env.BUILD_NO_MINIFY,
    // Class and function names stay: errors are logged and matched by name (UniqueConstraintViolationException).
    keepNames: true,
    platform: "node",
    format: "esm",
    target: "node24",
    external: EXTERNAL,
    // Bundled CommonJS packages call require() for node's own modules, which an ES module lacks.
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    // Source maps for reading a production stack trace by hand (`node --enable-source-maps dist/x.js`), not
    // loaded by default: parsing them costs every process memory at start.
    sourcemap: "linked",
    plugins: [builtinsByRequire(), entitySortWithoutIcu(), zodLocalesEnglishOnly(), onePerVersion()],
    logLevel: "warning",
  });
  // The web app's static files, beside dist/web.js which serves them (web/server/main.ts), each compressible
  // one with its .br and .gz (web/build/precompress.ts).
  await buildWebApp(join(outdir, "web"));
  moveSourceMaps(join(outdir, "web"), join(outdir, "sourcemaps"));
}

const VITE_CLI = join(dirname(createRequire(import.meta.url).resolve("vite/package.json")), "bin", "vite.js");

/**
 * The web app's static files, built as production serves them whatever NODE_ENV the caller has: Vite
 * bundles React's development build (its effects run twice, its checks slow every render) when NODE_ENV
 * is not "production", and vitest sets "test". So Vite runs in a child process, whose NODE_ENV alone is set.
 */
export async function buildWebApp(outDir: string, options: { sourcemap?: boolean } = {}): Promise<void> {
  const args = [VITE_CLI, "build", "--config", join(ROOT, "web/vite.config.ts"), "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"];
  if (options.sourcemap === false) args.push("--sourcemap", "false");
  await promisify(execFile)(process.execPath, args, { cwd: ROOT, env: { ...process.env, NODE_ENV: "production" } });
}

/**
 * The web app's source maps (hidden: no sourceMappingURL comment) leave the public folder for one beside it,
 * dist/sourcemaps/ with the same relative paths (assets/index-<hash>.js.map), for an operator to upload to an
 * error tracker with the release. They hold the app's whole source: never served (the server also answers
 * 404 for any *.map).
 */
export function moveSourceMaps(publicDir: string, mapsDir: string): string[] {
  rmSync(mapsDir, { recursive: true, force: true });
  const moved: string[] = [];
  for (const entry of readdirSync(publicDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".map")) continue;
    const from = join(entry.parentPath, entry.name);
    const to = join(mapsDir, relative(publicDir, from));
    mkdirSync(dirname(to), { recursive: true });
    renameSync(from, to);
    moved.push(to);
  }
  return moved;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(ROOT, "deploy/build.ts")) {
  const outdir = process.argv[2] ? resolve(process.argv[2]) : undefined;
  await buildPlatform(outdir);
  console.log(`built ${outdir ?? join(ROOT, "dist")}`);
}
