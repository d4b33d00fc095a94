/**
 * Social sign-in and linking: the buttons for the providers the platform has configured (GET
 * /social-providers; none when the route is absent), each starting the provider's flow and leaving for its
 * page. The provider comes back to the gateway's callback, which returns the browser to `callbackURL`.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { api, errorMessage } from "./api";
import { FormAlert } from "./components";
import { translate, useT } from "./i18n";

/** The providers' own names (brands, the same in every language). */
const PROVIDER_NAMES: Record<string, string> = {
  github: "GitHub",
  gitlab: "GitLab",
  google: "Google",
  microsoft: "Microsoft",
  apple: "Apple",
  facebook: "Facebook",
  discord: "Discord",
  linkedin: "LinkedIn",
  twitter: "X (Twitter)",
  twitch: "Twitch",
  spotify: "Spotify",
  reddit: "Reddit",
  tiktok: "TikTok",
  dropbox: "Dropbox",
  roblox: "Roblox",
  vk: "VK",
  kick: "Kick",
  zoom: "Zoom",
};

/**
 * "github" -> "GitHub", "credential" -> "Email and password" (in the reader's language), a generic provider
 * -> the display name its operator configured (`names`); an unknown id gets a capital first letter.
 */
export const providerName = (id: string, names: Record<string, string> = {}) =>
  id === "credential" ? translate("account.passwordMethod") : (names[id] ?? PROVIDER_NAMES[id] ?? id.charAt(0).toUpperCase() + id.slice(1));

export const useSocialProviders = () => useQuery({ queryKey: ["social-providers"], queryFn: api.socialProviders, staleTime: Infinity });

/** providerName with the configured generic providers' display names. */
export function useProviderName() {
  const names = useSocialProviders().data?.names;
  return (id: string) => providerName(id, names);
}

/** Leaves for the provider's page (a full navigation: the provider is another site). */
const leaveFor = (url: string) => window.location.assign(url);

/** Starts linking `provider` to the signed-in account and leaves for its page (a link, or an unlink's undo). */
export const linkProvider = async (provider: string, callbackURL: string) => leaveFor((await api.linkSocial({ provider, callbackURL })).url);

/**
 * One button per configured provider. `mode` "sign-in" signs in (or up) and returns to `callbackURL`, or
 * on failure to `errorCallbackURL` with ?error=; "link" adds the provider to the signed-in account.
 * `except` hides providers already linked.
 */
export function SocialButtons({
  mode,
  callbackURL,
  errorCallbackURL,
  except = [],
}: {
  mode: "sign-in" | "link";
  callbackURL: string;
  errorCallbackURL?: string;
  except?: string[];
}) {
  const t = useT();
  const providers = useSocialProviders();
  const start = useMutation({
    mutationFn: (provider: string) => (mode === "sign-in" ? api.signInSocial : api.linkSocial)({ provider, callbackURL, ...(errorCallbackURL ? { errorCallbackURL } : {}) }),
    onSuccess: (answer) => leaveFor(answer.url),
  });
  const shown = (providers.data?.ids ?? []).filter((id) => !except.includes(id));
  if (shown.length === 0) return null;
  const name = (id: string) => providerName(id, providers.data?.names);
  const label = (id: string) =>
    start.isPending && start.variables === id
      ? t("signIn.opening", { provider: name(id) })
      : mode === "sign-in"
        ? t("signIn.continueWith", { provider: name(id) })
        : t("account.linkProvider", { provider: name(id) });
  return (
    <div className="social">
      <FormAlert message={start.error ? errorMessage(start.error) : undefined} cause={start.error} />
      <ul className="social-buttons" aria-label={mode === "sign-in" ? t("signIn.otherServices") : t("account.linkAnother")}>
        {shown.map((id) => (
          <li key={id}>
            <button type="button" onClick={() => start.mutate(id)} disabled={start.isPending} aria-busy={(start.isPending && start.variables === id) || undefined}>
              {label(id)}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
