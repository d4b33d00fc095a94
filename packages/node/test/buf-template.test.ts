/**
 * The buf.gen template of docs/internal-api.md ("Clients in other languages") is one buf accepts for these
 * contracts: buf builds the paths it names (a typo in a path fails here) and the template is valid YAML
 * naming Go and Python plugins. Generating needs buf's hosted plugins (the network), so it is not run.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

it("the docs' buf template names Go and Python plugins, and its paths build", () => {
  const doc = readFileSync(join(ROOT, "docs/internal-api.md"), "utf8");
  const after = doc.slice(doc.indexOf("### Clients in other languages"));
  const template = /```yaml\n([\s\S]*?)```/.exec(after)?.[1];
  const command = /```sh\n([\s\S]*?)```/.exec(after)?.[1];
  expect(template).toMatch(/^version: v2$/m);
  for (const plugin of ["protocolbuffers/go", "grpc/go", "protocolbuffers/python", "grpc/python"]) expect(template).toContain(`remote: buf.build/${plugin}`);
  const paths = [...command!.matchAll(/--path (\S+)/g)].map((m) => m[1]!);
  expect(paths.length).toBeGreaterThan(0);
  const buf = join(ROOT, "node_modules/.bin/buf");
  execFileSync(buf, ["build", ...paths.flatMap((p) => ["--path", p]), "-o", "/dev/null"], { cwd: join(ROOT, "proto"), stdio: "pipe" });
});
