/** Runs the works given to the returned function one after another, in the order given. */
export function inTurn(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const run = last.then(work, work);
    // The next work waits for this one to settle, whatever its outcome.
    last = run.catch(() => undefined);
    return run;
  };
}
