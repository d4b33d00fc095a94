/** The signed-in session as server state: one query every screen and guard reads. */
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api";

export const sessionQuery = queryOptions({
  queryKey: ["session"],
  queryFn: api.getSession,
  staleTime: 30_000,
});

export const useSession = () => useQuery(sessionQuery);

/**
 * Whether this browser was just signed out everywhere from the account page: the sign-in screen it lands on
 * says so once. Kept in memory only, as the page's own news.
 */
let signedOutOfEveryDevice = false;

export const noteSignedOutEverywhere = () => {
  signedOutOfEveryDevice = true;
};

export const signedOutEverywhere = () => signedOutOfEveryDevice;

export const clearSignedOutEverywhere = () => {
  signedOutOfEveryDevice = false;
};
