/**
 * The package's build script bundles what it imports from the repository (the generated clients of
 * @auth-platform/proto) so the published file needs only its declared dependencies.
 */
import { execSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { scripts: { build: string }; dependencies: Record<string, string> };
const out = join(PACKAGE, ".tmp", `build-${process.pid}`);
afterAll(() => rmSync(join(PACKAGE, ".tmp"), { recursive: true, force: true }));

it("bundles the generated clients and leaves only the declared dependencies external", async () => {
  const command = manifest.scripts.build.replace("--outfile=dist/index.js", `--outfile=${out}/index.js`);
  expect(command).not.toBe(manifest.scripts.build);
  execSync(command, { cwd: PACKAGE, env: { ...process.env, PATH: `${join(PACKAGE, "../../node_modules/.bin")}:${process.env.PATH}` }, stdio: "pipe" });
  const bundle = readFileSync(join(out, "index.js"), "utf8");
  const imported = new Set([...bundle.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!));
  const declared = (name: string) => Object.keys(manifest.dependencies).some((dep) => name === dep || name.startsWith(`${dep}/`));
  expect(imported.size).toBeGreaterThan(0);
  for (const name of imported) expect(name.startsWith("node:") || declared(name), name).toBe(true);
  expect(bundle).not.toContain("@auth-platform/");
  const loaded = (await import(pathToFileURL(join(out, "index.js")).href)) as Record<string, unknown>;
  expect(typeof loaded.createAuthClient).toBe("function");
  expect(typeof loaded.authOf).toBe("function");
});
