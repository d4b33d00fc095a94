/**
 * Impersonation's part of every page (the layout), apart from the admin area so the screens everyone uses
 * load without it: the banner while an admin acts as someone else, and the cache reset when the session
 * changes hands.
 */
import { type QueryClient, useMutation, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { api, errorMessage, type User } from "./api";
import { useT } from "./i18n";

/**
 * After the session changed hands (impersonation started or stopped): everything cached belonged to the
 * other user. Reset (not remove) so the screens on show refetch as the new user at once.
 */
export const startOver = (queryClient: QueryClient) => queryClient.resetQueries({ predicate: (query) => query.queryKey[0] !== "outbox-available" });

/** The banner on every page while an admin acts as someone else, with the way back. */
export function ImpersonationBanner({ user }: { user: User }) {
  const t = useT();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const stop = useMutation({
    mutationFn: api.admin.stopImpersonating,
    onSuccess: async () => {
      await startOver(queryClient);
      await navigate({ to: "/admin/users/$id", params: { id: user.id } });
    },
  });
  return (
    <section className="impersonation" aria-label={t("admin.impersonation.label")}>
      <span>{t("admin.impersonation.banner", { name: user.name || user.email, email: user.email })}</span>
      <button type="button" onClick={() => stop.mutate()} disabled={stop.isPending} aria-busy={stop.isPending || undefined}>
        {stop.isPending ? t("admin.impersonation.stopping") : t("admin.impersonation.stop")}
      </button>
      {stop.error && <span role="alert">{errorMessage(stop.error)}</span>}
    </section>
  );
}
