/** The signed-in session as server state: one query every screen and guard reads. */
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "./api";

export const sessionQuery = queryOptions({
  queryKey: ["session"],
  queryFn: api.getSession,
  staleTime: 30_000,
});

export const useSession = () => useQuery(sessionQuery);
