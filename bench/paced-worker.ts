/** The worker thread behind runPacedLoadApart (bench/load.ts): one paced run, its measurement posted back. */
import { parentPort, workerData } from "node:worker_threads";
import { type LoadOptions, runPacedLoad } from "./load.js";

parentPort!.postMessage(await runPacedLoad(workerData as LoadOptions & { rate: number }));
