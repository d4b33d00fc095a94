import { ScimError } from "../src/scim/errors.js";

/** The ScimError `run` throws; fails the test when it throws nothing or something else. */
export function scimRefusal(run: () => unknown): ScimError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScimError) return error;
    throw error;
  }
  throw new Error("expected a ScimError");
}

/** The ScimError a promise rejects with. */
export async function scimRejection(run: () => Promise<unknown>): Promise<ScimError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ScimError) return error;
    throw error;
  }
  throw new Error("expected a ScimError");
}
