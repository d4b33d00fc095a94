/**
 * Checks XML against schemas with libxml2's xmllint compiled to WebAssembly (xmllint-wasm), in worker
 * threads that live for many messages: each worker compiles the WebAssembly once and runs every message on a
 * fresh instance with fresh memory (an instance's memory cannot be reused: libxml2's heap is not reset).
 *
 * xmllint-wasm itself starts a worker and compiles the module for every message (about 300 ms each); here a
 * message costs a few milliseconds. A worker is replaced after RECYCLE_AFTER messages, or at once when it
 * fails or overruns, so the memory V8 keeps from earlier instances is given back with the thread.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";

export interface XmlFile {
  fileName: string;
  contents: string;
}

/** What xmllint answered: valid, invalid (exit 3 or 4: a validation error), or failed (anything else). */
type Outcome = { valid: boolean } | { failed: string };

/**
 * Messages a worker checks before it is replaced: V8 frees spent instances' memory lazily, and a new thread
 * gives it back (800 messages: 170 MiB of RSS at 100 per worker, 151 at 25).
 */
const RECYCLE_AFTER = 50;
/** A worker idle this long ends: an idle sso holds no thread (each holds some 30 MiB). */
const IDLE_MS = 30_000;
/** A message taking longer than this ends its worker (libxml2 bounded by 32 MiB of memory should never). */
const MESSAGE_TIMEOUT_MS = 10_000;

/**
 * The worker: compiles xmllint once, then answers `{id, xml}` on its port. xmllint-node.js also listens on
 * the worker's parentPort for its own one-shot protocol; nothing is ever posted there.
 */
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const createXmllint = require(workerData.script);
const compiled = new WebAssembly.Module(workerData.wasm);
const { port, schema, preload, initialPages, maxPages } = workerData;
port.on("message", ({ id, xml }) => {
  let answered = false;
  const answer = (outcome) => {
    if (answered) return;
    answered = true;
    port.postMessage({ id, outcome });
  };
  createXmllint({
    inputFiles: [{ fileName: "message.xml", contents: xml }, schema, ...preload],
    arguments: ["--schema", schema.fileName, "--noout", "message.xml"],
    stdout: () => {},
    stderr: () => {},
    wasmMemory: new WebAssembly.Memory({ initial: initialPages, maximum: maxPages }),
    instantiateWasm(imports, ready) {
      WebAssembly.instantiate(compiled, imports).then(ready, (error) => answer({ failed: String(error) }));
      return {};
    },
    onExit: (code) => answer(code === 0 ? { valid: true } : code === 3 || code === 4 ? { valid: false } : { failed: "xmllint exited with " + code }),
  }).then(undefined, (error) => answer({ failed: String(error) }));
});
`;

interface Pending {
  resolve: (outcome: Outcome) => void;
  timer: NodeJS.Timeout;
}

/** One worker and its port; `used` counts the messages given to it. */
class ValidatorWorker {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  used = 0;
  ended = false;
  /** Set while the worker waits idle in the pool. */
  idleTimer: NodeJS.Timeout | undefined;

  constructor(setup: { script: string; wasm: Uint8Array; schema: XmlFile; preload: XmlFile[] }) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...setup, port: port2, initialPages: 256, maxPages: 512 },
      transferList: [port2],
    });
    // An idle worker must not keep the process alive at shutdown.
    this.worker.unref();
    this.port.unref();
    this.port.on("message", ({ id, outcome }: { id: number; outcome: Outcome }) => this.settle(id, outcome));
    this.worker.on("error", (error) => this.end(`the validator worker failed: ${error.message}`));
    this.worker.on("exit", () => this.end("the validator worker exited"));
  }

  check(xml: string): Promise<Outcome> {
    this.used += 1;
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.end("the validator took too long"), MESSAGE_TIMEOUT_MS);
      this.pending.set(id, { resolve, timer });
      this.port.postMessage({ id, xml });
    });
  }

  private settle(id: number, outcome: Outcome): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    waiting.resolve(outcome);
  }

  /** Ends the worker; whatever it still owed answers as failed. */
  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    for (const id of [...this.pending.keys()]) this.settle(id, { failed: reason });
    this.port.close();
    void this.worker.terminate();
  }
}

/**
 * A validator for one schema (with the files it imports): at most `workers` messages at once, each on a
 * worker of its own; the rest wait their turn.
 */
export function schemaValidator(options: { schema: () => XmlFile; preload: () => XmlFile[]; workers: number }) {
  const require = createRequire(import.meta.url);
  let setup: ConstructorParameters<typeof ValidatorWorker>[0] | undefined;
  const idle: ValidatorWorker[] = [];
  let busy = 0;
  const waiting: ((worker: ValidatorWorker) => void)[] = [];

  const take = async (): Promise<ValidatorWorker> => {
    if (busy >= options.workers) return new Promise((resolve) => waiting.push(resolve));
    busy += 1;
    setup ??= {
      script: require.resolve("xmllint-wasm/xmllint-node.js"),
      wasm: readFileSync(require.resolve("xmllint-wasm/xmllint.wasm")),
      schema: options.schema(),
      preload: options.preload(),
    };
    const worker = idle.pop();
    if (!worker) return new ValidatorWorker(setup);
    clearTimeout(worker.idleTimer);
    return worker;
  };

  const rest = (worker: ValidatorWorker): void => {
    idle.push(worker);
    worker.idleTimer = setTimeout(() => {
      idle.splice(idle.indexOf(worker), 1);
      worker.end("idle");
    }, IDLE_MS).unref();
  };

  const give = (worker: ValidatorWorker): void => {
    const healthy = !worker.ended && worker.used < RECYCLE_AFTER;
    if (!healthy) worker.end("recycled");
    const next = waiting.shift();
    if (next) next(healthy ? worker : new ValidatorWorker(setup!));
    else {
      busy -= 1;
      if (healthy) rest(worker);
    }
  };

  return {
    /** True for a message valid against the schema, false for one that is not; throws when xmllint failed. */
    async isValid(xml: string): Promise<boolean> {
      const worker = await take();
      let outcome: Outcome;
      try {
        outcome = await worker.check(xml);
      } finally {
        give(worker);
      }
      if ("failed" in outcome) throw new Error(`XML schema validation failed: ${outcome.failed}`);
      return outcome.valid;
    },
    /** Worker threads alive now (busy or idle). */
    threads(): number {
      return busy + idle.length;
    },
    /** Ends every idle worker (tests; a service's workers are unreferenced and end with it). */
    close(): void {
      for (const worker of idle.splice(0)) {
        clearTimeout(worker.idleTimer);
        worker.end("closed");
      }
    },
  };
}
