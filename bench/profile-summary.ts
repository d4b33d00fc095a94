/**
 * Summarises a V8 .cpuprofile (from BENCH_CPU_PROF=<dir>): self time by function and by package, and
 * inclusive time for functions of our own code.
 *
 *   tsx bench/profile-summary.ts <file.cpuprofile> [top=25] [--last=<seconds>] [--drop-last=<seconds>]
 *
 * --last keeps only the samples of the profile's last seconds: a child's profile covers its whole life
 * (start-up, set-up, idling through the baseline), the measured load is its end. --drop-last first cuts
 * that many seconds off the end: the raw scrypt measured after sign-in (BENCH_SCRYPT_DURATION plus about
 * a second) with the platform idle.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const lastArg = args.find((a) => a.startsWith("--last="));
const dropArg = args.find((a) => a.startsWith("--drop-last="));
const [file, topArg] = args.filter((a) => !a.startsWith("--"));
if (!file) {
  process.stderr.write("usage: tsx bench/profile-summary.ts <file.cpuprofile> [top] [--last=<seconds>] [--drop-last=<seconds>]\n");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
if (lastArg || dropArg) {
  // Sample times are the start time plus the running sum of the deltas (microseconds).
  const until = profile.endTime - Number(dropArg?.slice("--drop-last=".length) ?? 0) * 1e6;
  const from = lastArg ? until - Number(lastArg.slice("--last=".length)) * 1e6 : -Infinity;
  let at = profile.startTime;
  const kept = profile.samples
    .map((id, i) => {
      at += profile.timeDeltas[i] ?? 0;
      return { id, delta: profile.timeDeltas[i] ?? 0, at };
    })
    .filter((s) => s.at >= from && s.at <= until);
  profile.samples = kept.map((s) => s.id);
  profile.timeDeltas = kept.map((s) => s.delta);
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const selfUs = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
const idleIds = new Set(profile.nodes.filter((n) => ["(idle)", "(program)", "(garbage collector)"].includes(n.callFrame.functionName)).map((n) => n.id));
const idleUs = [...idleIds].reduce((sum, id) => sum + (selfUs.get(id) ?? 0), 0);

function packageOf(url: string): string {
  if (!url) return "(native/vm)";
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  const nm = url.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const repo = url.indexOf("/work/");
  return url
    .slice(Math.max(repo, 0))
    .replace(/^file:\/\//, "")
    .split("/")
    .slice(0, 6)
    .join("/");
}

const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "~/")}:${n.callFrame.lineNumber + 1}`;

const selfByLabel = new Map<string, number>();
const selfByPackage = new Map<string, number>();
const inclusiveByLabel = new Map<string, number>();
for (const [id, us] of selfUs) {
  const node = byId.get(id)!;
  selfByLabel.set(label(node), (selfByLabel.get(label(node)) ?? 0) + us);
  const pkg = idleIds.has(id) ? node.callFrame.functionName : packageOf(node.callFrame.url);
  selfByPackage.set(pkg, (selfByPackage.get(pkg) ?? 0) + us);
  // Inclusive time for our own frames (each frame counted once per sample stack).
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)!;
    if (frame.callFrame.url.includes("/node_modules/") || !frame.callFrame.url.includes("/work/")) continue;
    const key = label(frame);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusiveByLabel.set(key, (inclusiveByLabel.get(key) ?? 0) + us);
  }
}

const pct = (us: number) => `${((us / totalUs) * 100).toFixed(1).padStart(5)} % ${(us / 1000).toFixed(0).padStart(6)} ms`;
const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(us)}  ${key}\n`);
};
process.stdout.write(`${file}: ${(totalUs / 1e6).toFixed(1)} s sampled, ${pct(totalUs - idleUs).trim()} busy in JS/native\n`);
print("self time by package", selfByPackage);
print("self time by function", selfByLabel);
print("inclusive time, our code", inclusiveByLabel);
