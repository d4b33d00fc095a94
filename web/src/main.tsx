import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ApiError } from "./api";
import { preferredLanguage, switchLanguage } from "./i18n";
import { createAppRouter } from "./router";
import { sessionQuery } from "./session";
import "./styles.css";

const queryClient: QueryClient = new QueryClient({
  // A read answered 401 means the session ended elsewhere (revoked, expired): back to sign-in, then here.
  queryCache: new QueryCache({
    onError: (error) => {
      if (!(error instanceof ApiError) || error.status !== 401) return;
      queryClient.setQueryData(sessionQuery.queryKey, null);
      const here = `${window.location.pathname}${window.location.search}`;
      void router.navigate({ to: "/sign-in", search: { redirect: here } });
    },
  }),
  defaultOptions: {
    // A 4xx answer is the answer: retrying it only delays the message.
    queries: { retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2, refetchOnWindowFocus: true },
  },
});
const router = createAppRouter(queryClient);

// The first paint is in the reader's language: its catalogue loads first (English is in the bundle).
void switchLanguage(preferredLanguage())
  .catch(() => undefined)
  .then(render);

function render() {
  createRoot(document.getElementById("root")!).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
}
