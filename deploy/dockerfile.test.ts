/**
 * The image runs each process the way the launcher and the chart do: its default command is the gateway
 * with the gateway's node flags, and the `docker run` line documented for every process passes that
 * process's flags (NODE_FLAGS) and environment (PROCESS_ENV), which operators copy.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILT_ENTRY, ENTRY_POINTS, NODE_FLAGS, PROCESS_ENV, ROOT, type ProcessName } from "./processes.js";

const dockerfile = readFileSync(join(ROOT, "deploy/Dockerfile"), "utf8");

/** The JSON array of an exec-form instruction (`ENTRYPOINT [...]`, `CMD [...]`). */
function execForm(instruction: string): string[] {
  const line = dockerfile.split("\n").find((l) => l.startsWith(`${instruction} `));
  if (!line) throw new Error(`no ${instruction} in deploy/Dockerfile`);
  return JSON.parse(line.slice(instruction.length + 1)) as string[];
}

/** The runtime image's `ENV KEY=value` settings (the last stage's). */
function imageEnv(): Record<string, string> {
  const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
  return Object.fromEntries(
    runtime
      .split("\n")
      .filter((line) => line.startsWith("ENV "))
      .map((line) => {
        const [key, ...value] = line.slice(4).split("=");
        return [key!, value.join("=")];
      }),
  );
}

/** The documented `docker run` line that runs this file, as words. */
function documentedRun(file: string): string[] | undefined {
  const line = dockerfile.split("\n").find((l) => l.startsWith("#   docker run") && l.split(/\s+/).includes(file));
  return line?.slice(1).trim().split(/\s+/);
}

describe("deploy/Dockerfile", () => {
  it("runs the gateway by default, with the gateway's node flags and environment", () => {
    expect(execForm("ENTRYPOINT")).toEqual(["node"]);
    expect(execForm("CMD")).toEqual([...NODE_FLAGS.gateway, BUILT_ENTRY.gateway]);
    expect(imageEnv()).toMatchObject(PROCESS_ENV.gateway);
  });

  it("exposes the port of every process its docker run lines name", () => {
    // "-> identity (gRPC :50051)", "-> the web app (HTTP :5173, WEB_PORT)"
    const named = [...dockerfile.matchAll(/^#.*-> [^(\n]*\((?:gRPC|HTTP) :(\d+)/gm)].map((m) => m[1]);
    const exposed = dockerfile.split("\n").find((line) => line.startsWith("EXPOSE "));
    expect(exposed?.slice("EXPOSE ".length).split(" ").sort()).toEqual([...new Set(named)].sort());
  });

  for (const name of Object.keys(ENTRY_POINTS) as ProcessName[]) {
    if (name === "gateway") continue;
    it(`documents how to run ${name} with its flags and environment`, () => {
      const words = documentedRun(BUILT_ENTRY[name]);
      expect(words, `a "docker run" line for ${BUILT_ENTRY[name]}`).toBeDefined();
      const image = words!.indexOf("auth-platform");
      const file = words!.indexOf(BUILT_ENTRY[name]);
      // node's own arguments are what comes between the image and the file.
      expect(words!.slice(image + 1, file)).toEqual(NODE_FLAGS[name]);
      // What the process gets: the image's environment, then the line's -e settings over it.
      const given = { ...imageEnv() };
      for (const [at, word] of words!.slice(0, image).entries()) {
        if (word !== "-e") continue;
        const [key, ...value] = words![at + 1]!.split("=");
        given[key!] = value.join("=");
      }
      for (const [key, value] of Object.entries(PROCESS_ENV[name])) expect(given[key], key).toBe(value);
    });
  }
});
