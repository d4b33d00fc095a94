# The two commands of the README: `make dev` runs the platform on its embedded defaults, `make test` runs
# every test. Both install what is missing first. npm scripts run on the Node 24 that `npm ci` brings.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

STAMP := node_modules/.install-stamp
MANIFESTS := package.json package-lock.json $(wildcard */package.json services/*/package.json)

.PHONY: install dev test typecheck lint format gen check-gen bench clean-data

$(STAMP): $(MANIFESTS)
	npm ci --no-audit --no-fund
	@touch $@

install: $(STAMP)

dev: install
	npm run dev

test: install check-gen typecheck
	npm test

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

bench: install
	npm run bench -w @auth-platform/bench

clean-data:
	rm -rf data
