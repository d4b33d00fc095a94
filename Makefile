# The two commands of the README: `make dev` runs the platform on its embedded defaults, `make test` runs
# every test. Both install what is missing first. npm scripts run on the Node 24 that `npm ci` brings.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

STAMP := node_modules/.install-stamp
MANIFESTS := package.json package-lock.json $(wildcard */package.json services/*/package.json packages/*/package.json)

.PHONY: install dev test test-fast typecheck lint format gen check-gen check-proto-compat upgrade-test bench clean-data bench-all bench-get-session bench-ok bench-sign-in \
  bench-sign-up bench-mixed bench-pinned bench-overload bench-footprint bench-enumeration bench-scrypt \
  bench-list-users bench-organization-members bench-http2-promotion bench-revocation-lag bench-scim-provisioning bench-sso-sign-in bench-peer bench-jwt-verify \
  bench-api-key-verify bench-import-better-auth

$(STAMP): $(MANIFESTS)
	npm ci --no-audit --no-fund
	@touch $@

install: $(STAMP)

dev: install
	npm run dev

test: install check-gen typecheck
	npm test

# Everything but the suites that boot the whole platform (vitest.config.ts: the `fast` project): unit,
# domain and one-service suites, for the edit-test loop. `make test` stays the whole suite.
test-fast: install
	vitest run --project fast

typecheck: install
	tsc -p tsconfig.json && tsc -p web/tsconfig.json

# biome's lint rules and format check (biome.json), then the refusal of fixed waits in tests.
lint: install
	biome check --error-on-warnings .
	tsx scripts/check-no-sleeps.ts

format: install
	biome format --write .

gen: install
	cd proto && buf lint && buf generate

# Fails when the committed ts-proto output differs from what the .proto files generate.
check-gen: install
	@cd proto && buf lint && tmp=$$(mktemp -d) && buf generate -o $$tmp && \
	  diff -r src/gen $$tmp/src/gen > /dev/null || { echo "proto/src/gen is out of date: run make gen"; rm -rf $$tmp; exit 1; }; \
	  rm -rf $$tmp; echo "generated code is up to date"

# RPC messages stay readable by the release in production (docs/upgrades.md): buf breaking against the
# commit deploy/previous-release names (PROTO_COMPAT_AGAINST, a git ref); skipped, saying so, in a clone without it.
PROTO_COMPAT_AGAINST ?= $(shell grep -v '^\#' deploy/previous-release)
check-proto-compat: install
	@if git rev-parse -q --verify "$(PROTO_COMPAT_AGAINST)^{commit}" > /dev/null; then \
	  cd proto && buf breaking --against "../.git#ref=$(PROTO_COMPAT_AGAINST),subdir=proto" && echo "proto is compatible with $(PROTO_COMPAT_AGAINST)"; \
	else echo "check-proto-compat: $(PROTO_COMPAT_AGAINST) is not in this clone, skipped"; fi

# A rolling upgrade from the release in production (UPGRADE_FROM, default deploy/previous-release) and its
# rollback under traffic, two replicas of every process on TEST_DATABASE_URL and TEST_REDIS_URL: fails on
# any failed request or signed-out session (scripts/upgrade-test.ts, docs/upgrades.md).
upgrade-test: install
	tsx scripts/upgrade-test.ts

bench: install
	npm run bench -w @auth-platform/bench

# One benchmark each (bench/README.md says what each measures). BENCH_CACHE=--redis or --both picks the
# session cache of a single bench/run.ts scenario (default memory); every BENCH_* variable passes through.
BENCH_CACHE ?=
bench-all: install
	cd bench && tsx run.ts all
bench-get-session bench-ok bench-sign-in bench-sign-up bench-mixed: bench-%: install
	cd bench && tsx run.ts $* $(BENCH_CACHE)
bench-pinned: install
	cd bench && BENCH_PIN=1 tsx run.ts sign-in $(BENCH_CACHE)
bench-overload: install
	cd bench && BENCH_AUTH_CONNECTIONS=200 BENCH_AUTH_CLIENT=both tsx run.ts sign-in $(BENCH_CACHE)
bench-footprint: install
	cd bench && tsx footprint.ts both
bench-import-better-auth: install
	cd bench && tsx import-better-auth.ts
bench-enumeration: install
	cd bench && tsx enumeration.ts
bench-revocation-lag: install
	flock /tmp/bench.lock tsx bench/revocation-lag.ts

bench-scim-provisioning: install
	flock /tmp/bench.lock tsx bench/scim-provisioning.ts
bench-jwt-verify: install
	flock /tmp/bench.lock tsx bench/jwt-verify.ts
bench-api-key-verify: install
	flock /tmp/bench.lock tsx bench/api-key-verify.ts
# BENCH_BACKEND=--postgres: a fresh PostgreSQL database per service (BENCH_DATABASE_URL, else TEST_DATABASE_URL).
BENCH_BACKEND ?=
bench-sso-sign-in: install
	flock /tmp/bench.lock tsx bench/sso-sign-in.ts $(BENCH_BACKEND)
bench-scrypt: install
	cd bench && GLIBC_TUNABLES=glibc.malloc.hugetlb=1 node --import tsx scrypt.ts 15 16
bench-list-users bench-organization-members bench-http2-promotion: bench-%: install
	cd bench && tsx $*.ts

# better-auth 1.7 beside the build, same storage and load (bench/README.md); the build is redone first when
# dist/ is missing or older than a source it is made from.
BUILD_SOURCES := $(shell find proto/src contract/src services/*/src gateway/src deploy web/src web/server web/public web/index.html web/vite.config.ts -type f 2>/dev/null) package-lock.json
dist/start.js: $(BUILD_SOURCES)
	npm run build
bench-peer: install dist/start.js
	cd bench && tsx peer.ts

clean-data:
	rm -rf data
