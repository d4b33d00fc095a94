/**
 * Social sign-in and linking: the buttons for the providers the platform has configured (GET
 * /social-providers; none when the route is absent), each starting the provider's flow and leaving for its
 * page. The provider comes back to the gateway's callback, which returns the browser to `callbackURL`.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { api, errorMessage } from "./api";
import { FormAlert } from "./components";

const PROVIDER_NAMES: Record<string, string> = {
  credential: "Email and password",
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

/** "github" -> "GitHub"; an unknown id gets a capital first letter. */
export const providerName = (id: string) => PROVIDER_NAMES[id] ?? id.charAt(0).toUpperCase() + id.slice(1);

export const useSocialProviders = () => useQuery({ queryKey: ["social-providers"], queryFn: api.socialProviders, staleTime: Infinity });

/** Leaves for the provider's page (a full navigation: the provider is another site). */
const leaveFor = (url: string) => window.location.assign(url);

/**
 * One button per configured provider. `mode` "sign-in" signs in (or up) and returns to `callbackURL`;
 * "link" adds the provider to the signed-in account. `except` hides providers already linked.
 */
export function SocialButtons({ mode, callbackURL, except = [] }: { mode: "sign-in" | "link"; callbackURL: string; except?: string[] }) {
  const providers = useSocialProviders();
  const start = useMutation({
    mutationFn: (provider: string) => (mode === "sign-in" ? api.signInSocial : api.linkSocial)({ provider, callbackURL }),
    onSuccess: (answer) => leaveFor(answer.url),
  });
  const shown = (providers.data ?? []).filter((id) => !except.includes(id));
  if (shown.length === 0) return null;
  const verb = mode === "sign-in" ? "Continue with" : "Link";
  return (
    <div className="social">
      <FormAlert message={start.error ? errorMessage(start.error) : undefined} />
      <ul className="social-buttons" aria-label={mode === "sign-in" ? "Sign in with another service" : "Link another sign-in method"}>
        {shown.map((id) => (
          <li key={id}>
            <button type="button" onClick={() => start.mutate(id)} disabled={start.isPending} aria-busy={(start.isPending && start.variables === id) || undefined}>
              {start.isPending && start.variables === id ? `Opening ${providerName(id)}…` : `${verb} ${providerName(id)}`}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
