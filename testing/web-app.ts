/**
 * The browser suites' one set-up: `const web = useWebApp({ smtp: true })` at the top of a file starts, before
 * its tests, the whole test platform (testing/platform.ts), the web app built by Vite and served by its
 * production server (web/server/web-server.ts, which proxies the API's base path, /api/auth unless `config`
 * says otherwise, to the gateway: one origin, as behind the Ingress), and a headless Chromium (Debian's `chromium`, driven by playwright-core). The platform's
 * AUTH_BASE_URL, AUTH_APP_URL and trusted origins name the web app's origin, so mailed links come back through
 * it as they do in production.
 *
 * Helpers: `web.page()` opens a page in a new browser context (its own cookies), `web.checkA11y(page, name)`
 * runs axe-core and fails on serious or critical violations, `web.screenshot(page, name)` saves a PNG under
 * test-artifacts/screenshots/ (git-ignored).
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, vi } from "vitest";
import { randomString, LOWER_ALPHANUMERIC } from "@auth-platform/runtime/random";
import { DEFAULT_RUNTIME_CONFIG, type RuntimeConfig } from "../web/server/runtime-config.js";
import { createWebServer } from "../web/server/web-server.js";
import { buildWebApp } from "../deploy/build.js";
import { ROOT } from "../deploy/processes.js";
import { type Platform, type PlatformOptions, startPlatform, freePorts } from "./platform.js";
import { type SmtpOptions, startSmtp, type TestSmtp } from "./smtp.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOTS = join(ROOT, "test-artifacts", "screenshots");

export interface UseWebAppOptions extends PlatformOptions {
  /** A test SMTP server receives the platform's mail (otherwise the development outbox keeps it). */
  smtp?: boolean | SmtpOptions;
  /** More platform environment that depends on the web app's origin (e.g. a provider's redirect URI). */
  envFor?: (origin: string) => Promise<Record<string, string>>;
  /** The web server's run-time settings (default /api/auth, no analytics); the gateway gets the same base path. */
  config?: RuntimeConfig;
  /** The host name of the app's origin (default 127.0.0.1); WebAuthn needs a domain, so passkey suites take `localhost`. */
  hostname?: "127.0.0.1" | "localhost";
}

export interface WebAppUnderTest {
  /** http://127.0.0.1:PORT (or the `hostname` asked), the web app's origin (the API is at origin + config.basePath, /api/auth by default). */
  readonly origin: string;
  readonly platform: Platform;
  readonly smtp: TestSmtp;
  readonly browser: Browser;
  /**
   * A page in a new browser context, 390 px wide when `mobile`, with another User-Agent when given, and the
   * browser's language `locale` (navigator.languages and Accept-Language; default en-US).
   */
  page(options?: { mobile?: boolean; userAgent?: string; locale?: string }): Promise<Page>;
  /** Fails on any serious or critical axe-core violation of the page as it is now. */
  checkA11y(page: Page, screen: string): Promise<void>;
  screenshot(page: Page, name: string): Promise<void>;
}

/** Builds the web app once per file into its own folder, as production serves it (a second's work; files run in parallel). */
async function buildApp(): Promise<string> {
  const outDir = join(ROOT, ".tmp", `web-test-${randomString(8, LOWER_ALPHANUMERIC)}`);
  await buildWebApp(outDir, { sourcemap: false });
  return outDir;
}

export function useWebApp(options: UseWebAppOptions = {}): WebAppUnderTest {
  const { smtp: smtpOption, envFor, config = DEFAULT_RUNTIME_CONFIG, hostname = "127.0.0.1", ...platformOptions } = options;
  // A browser test walks through several screens, each a few round trips; on a busy 2-core machine that
  // takes longer than the 30 s the API suites get.
  vi.setConfig({ testTimeout: 120_000 });
  let platform: Platform | undefined;
  let smtp: TestSmtp | undefined;
  let server: Server | undefined;
  let browser: Browser | undefined;
  let outDir: string | undefined;
  let origin = "";
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
    const [webPort] = await freePorts(1);
    origin = `http://${hostname}:${webPort}`;
    if (smtpOption) smtp = await startSmtp(smtpOption === true ? {} : smtpOption);
    const originEnv = envFor ? await envFor(origin) : {};
    const [built, started] = await Promise.all([
      buildApp(),
      startPlatform({
        ...platformOptions,
        env: {
          AUTH_BASE_URL: `${origin}${config.basePath}`,
          AUTH_BASE_PATH: config.basePath,
          AUTH_APP_URL: origin,
          AUTH_TRUSTED_ORIGINS: origin,
          ...(smtp ? { SMTP_URL: smtp.url } : {}),
          ...originEnv,
          ...platformOptions.env,
        },
      }),
    ]);
    outDir = built;
    platform = started;
    server = createWebServer({ root: outDir, gatewayUrl: platform.origin, config });
    await new Promise<void>((resolve) => server!.listen(webPort, "127.0.0.1", resolve));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
    }
    await platform?.stop();
    await smtp?.stop();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useWebApp: no ${what} (it starts in beforeAll)`);
    return value;
  };

  return {
    get origin() {
      return origin;
    },
    get platform() {
      return need(platform, "platform");
    },
    get smtp() {
      return need(smtp, "SMTP server (pass { smtp: true })");
    },
    get browser() {
      return need(browser, "browser");
    },
    async page({ mobile = false, userAgent, locale }: { mobile?: boolean; userAgent?: string; locale?: string } = {}) {
      const context = await need(browser, "browser").newContext({
        baseURL: origin,
        ...(userAgent ? { userAgent } : {}),
        ...(locale ? { locale } : {}),
        viewport: mobile ? { width: 390, height: 844 } : { width: 1280, height: 900 },
      });
      contexts.push(context);
      return context.newPage();
    },
    async checkA11y(page, screen) {
      const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
      const serious = violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
      expect(serious, `axe on ${screen}`).toEqual([]);
    },
    async screenshot(page, name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
  };
}
