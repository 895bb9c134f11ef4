# folio: `make run` serves the fixture site, `make test` runs every test.
GO      ?= go
BIN     := $(CURDIR)/.bin
FOLIO   := $(BIN)/folio
DATA    := $(CURDIR)/data
ADDR    ?= 127.0.0.1:8080
METRICS_ADDR ?= 127.0.0.1:9090
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
# go.mod's toolchain line names the Go release folio is built and checked
# with (patch releases carry security fixes govulncheck would report); with
# GOTOOLCHAIN=auto the go command fetches it from the Go module proxy when
# the installed Go is older. GOTOOLCHAIN=local keeps the installed one.
export GOTOOLCHAIN ?= auto
ALL_SCOPES := content:read,content:draft,content:write,media:read,media:write,media:delete

# versitygw is the real S3 server the S3 tests run against (posix backend on
# 127.0.0.1), built from the Go module proxy at a pinned version into .bin/.
VERSITYGW_VERSION ?= v1.8.0
VERSITYGW ?= $(BIN)/versitygw

# JPEG originals are decoded with libjpeg-turbo (media/derive/jpeg_turbo.go,
# build tag libjpeg) when its header is installed (Debian:
# libjpeg62-turbo-dev), else with Go's image/jpeg, which is slower. Image
# variants can be AVIF when libavif's header is installed (Debian:
# libavif-dev; build tag libavif), else fm=avif is a 400.
CC        ?= cc
LIBJPEG   := $(shell printf '\#include <stdio.h>\n\#include <jpeglib.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo libjpeg)
LIBAVIF   := $(shell printf '\#include <avif/avif.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo libavif)
TAGS      := $(strip $(LIBJPEG) $(LIBAVIF))
comma     := ,
space     := $() $()
GOTAGS    := $(if $(TAGS),-tags $(subst $(space),$(comma),$(TAGS)))
# The packages with code for either build: make test runs them without
# the tags too.
NOTAG_PKGS := ./media/derive/

.PHONY: node-tools all build run fixture-refs test test-long test-short bench bench-scale lint vulncheck versitygw dist clean fuzz chaos toxiproxy soak
all: build

build:
	@echo "JPEG decoder: $(if $(LIBJPEG),libjpeg-turbo,Go image/jpeg (no jpeglib.h: apt-get install libjpeg62-turbo-dev))"
	@echo "AVIF variants: $(if $(LIBAVIF),libavif,off (no avif/avif.h: apt-get install libavif-dev))"
	$(GO) build $(GOTAGS) -ldflags "$(LDFLAGS)" -o $(FOLIO) ./cmd/folio

versitygw: $(VERSITYGW)
$(VERSITYGW):
	GOBIN=$(BIN) $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)

# toxiproxy is the TCP proxy the chaos tests put between folio and
# versitygw and between folio and its Git remote, to inject latency,
# slow bandwidth, resets and outages; built like versitygw (its server
# command is installed as "server", renamed here).
TOXIPROXY_VERSION ?= v2.5.0
TOXIPROXY ?= $(BIN)/toxiproxy-server

toxiproxy: $(TOXIPROXY)
$(TOXIPROXY):
	mkdir -p $(BIN)/toxiproxy.d
	GOBIN=$(BIN)/toxiproxy.d $(GO) install github.com/Shopify/toxiproxy/v2/cmd/server@$(TOXIPROXY_VERSION)
	mv $(BIN)/toxiproxy.d/server $(TOXIPROXY)
	rmdir $(BIN)/toxiproxy.d

# run serves fixtures/site (copied into a Git repository under data/, which
# git ignores) and the fixture media, and prints a key with every scope.
# The media are imported first: a file's key holds the month of its import,
# so the site's /uploads/2026/01/<name> references are rewritten to the keys
# the import gave (fixture-refs), and `folio check --media` finds no
# missing media.
run: build
	@mkdir -p $(DATA)
	@if [ ! -d $(DATA)/media ]; then $(FOLIO) media import --media $(DATA)/media fixtures/media/*.* ; fi
	@if [ ! -d $(DATA)/site/.git ]; then \
		rm -rf $(DATA)/site && cp -R fixtures/site $(DATA)/site && \
		$(MAKE) -s fixture-refs SITE=$(DATA)/site MEDIA=$(DATA)/media && cd $(DATA)/site && \
		git init -q -b main && git add -A && \
		git -c user.name=folio -c user.email=folio@localhost commit -q -m "Fixture site"; fi
	@if [ ! -s $(DATA)/dev.key ] || [ ! -s $(DATA)/keys.yaml ] || ! grep -q content:write $(DATA)/keys.yaml; then \
		rm -f $(DATA)/keys.yaml && \
		$(FOLIO) keys create --keys $(DATA)/keys.yaml --name dev --scopes $(ALL_SCOPES) 2>/dev/null | tail -n 1 > $(DATA)/dev.key; fi
	@echo
	@echo "API key (all scopes): $$(cat $(DATA)/dev.key)"
	@echo "Try:  curl -H 'Authorization: Bearer $$(cat $(DATA)/dev.key)' http://$(ADDR)/api/v1/pages"
	@echo "Admin UI: http://$(ADDR)/admin/ (paste the key)"
	@echo
	$(FOLIO) serve --site $(DATA)/site --keys $(DATA)/keys.yaml --media $(DATA)/media \
		--cache-dir $(DATA)/cache --addr $(ADDR) --metrics-addr $(METRICS_ADDR)

# fixture-refs rewrites, in the copy of fixtures/site at SITE, each
# /uploads/2026/01/<name> to the key of the file <name> in the media root
# MEDIA (<yyyy>/<mm>/<name>, the month of its import).
fixture-refs:
	@for f in $$(grep -rl '/uploads/2026/01/' $(SITE) --include='*.md' --include='*.yaml' --include='*.json'); do \
		for name in $$(grep -o '/uploads/2026/01/[A-Za-z0-9._-]*' $$f | sed 's|.*/||' | sort -u); do \
			key=$$(cd $(MEDIA) && ls -d */*/"$$name" 2>/dev/null | head -n 1); \
			if [ -n "$$key" ]; then sed "s|/uploads/2026/01/$$name|/uploads/$$key|g" $$f > $$f.tmp && mv $$f.tmp $$f; fi; \
		done; \
	done

# node-tools installs what the TypeScript client test runs (server/
# typescript_test.go): openapi-typescript and tsc, and the decap-cms
# package the Decap CMS editor test serves locally (server/
# decap_browser_test.go, folio serve --decap-dir), under .bin/node, at
# the versions fixtures/node-tools/package-lock.json pins (npm ci).
# decap-cms's version there is the one server.DefaultDecapVersion names.
NODE_TOOLS := $(BIN)/node
node-tools:
	mkdir -p $(NODE_TOOLS)
	cp fixtures/node-tools/package.json fixtures/node-tools/package-lock.json $(NODE_TOOLS)/
	cd $(NODE_TOOLS) && npm ci --no-audit --no-fund --silent

# test names ./server/ and ./cmd/folio/ first: go test builds and starts
# packages in the order named, and theirs are the longest runs. Up to
# TEST_PARALLEL tests of a package run at once (go test's default is
# GOMAXPROCS, 2 here): many of them wait on fsync, versitygw, tsc or
# Chromium rather than use a core. The untagged run of NOTAG_PKGS runs
# alongside, its output printed at the end, without -race: the only code
# it adds to the tagged run's is the pure-Go decoders' files, which hold
# no state, and every file with goroutines or shared data is in both
# builds, so the tagged run's -race covers them (docs/contributing.md;
# 3 s of CPU instead of 33).
TEST_PARALLEL ?= 4
test: $(VERSITYGW)
	@mkdir -p $(BIN)
	$(if $(TAGS),FOLIO_VERSITYGW=$(VERSITYGW) $(GO) test -count=1 $(NOTAG_PKGS) >$(BIN)/test-notag.log 2>&1 & notag=$$!;) \
	$(if $(wildcard $(NODE_TOOLS)/node_modules/.bin/tsc),FOLIO_NODE_TOOLS=$(NODE_TOOLS)) FOLIO_VERSITYGW=$(VERSITYGW) \
		$(GO) test $(GOTAGS) -race -count=1 -parallel $(TEST_PARALLEL) -timeout 30m ./server/ ./cmd/folio/ ./...; status=$$?; \
	$(if $(TAGS),wait $$notag || status=1; echo "== $(NOTAG_PKGS) without the tags $(TAGS):"; cat $(BIN)/test-notag.log;) \
	exit $$status

# test-long runs the tests that make test runs at a smaller scale at their
# full one (build tag long: server/scale_long_test.go): the property tests
# with all their rounds, TestMediaUploadManyFiles with the contract's 1000
# files in one upload. CI runs it after make chaos.
test-long:
	$(GO) test -tags $(subst $(space),$(comma),$(strip long $(TAGS))) -race -count=1 -timeout 30m -run 'Property|TestMediaUploadManyFiles' ./server/

# chaos runs the fault-injection tests (cmd/folio/chaos_test.go, build tag
# chaos): real folio processes with toxiproxy in front of versitygw and of
# an HTTP Git remote, and a disk that fills up. CI runs it after make test.
# CHAOS_OUTAGE is how long the bucket is unreachable (default 20s in the
# suite; the issue's figure is 60s: make chaos CHAOS_OUTAGE=60s).
CHAOS_OUTAGE ?=
chaos: $(VERSITYGW) $(TOXIPROXY)
	FOLIO_VERSITYGW=$(VERSITYGW) FOLIO_TOXIPROXY=$(TOXIPROXY) FOLIO_CHAOS_OUTAGE=$(CHAOS_OUTAGE) \
		$(GO) test -tags $(subst $(space),$(comma),$(strip chaos $(TAGS))) -count=1 -timeout 15m -run '^TestChaos' -v ./cmd/folio/

# soak (not in CI) runs one writer and two read-only boxes on versitygw
# under mixed load for SOAK_DURATION (reads at SOAK_READ_RATE a second,
# uploads, PATCHes, pushes, image variants) and checks that RSS and
# goroutines stop growing after warm-up, no 5xx, every box's lists
# identical, every acknowledged write present (cmd/folio/soak_test.go;
# figures in docs/soak.md).
SOAK_DURATION  ?= 30m
SOAK_READ_RATE ?= 150
soak: $(VERSITYGW)
	FOLIO_VERSITYGW=$(VERSITYGW) FOLIO_SOAK_DURATION=$(SOAK_DURATION) FOLIO_SOAK_READ_RATE=$(SOAK_READ_RATE) \
		$(GO) test -tags $(subst $(space),$(comma),$(strip soak $(TAGS))) -count=1 -timeout 0 -run '^TestSoak$$' -v ./cmd/folio/

# fuzz runs every native fuzz target of the module (every func Fuzz… in a
# _test.go file) for FUZZTIME each, one after the other: make fuzz
# FUZZTIME=10m to run longer, FUZZ=Upload to pick targets by a regular
# expression, FUZZFLAGS=-parallel=1 to leave cores free.
# A crash is written to the package's testdata/fuzz/<Target>/, where go
# test then runs it as a regression test: commit it with the fix.
FUZZTIME  ?= 60s
FUZZFLAGS ?=
FUZZ      ?= .
fuzz:
	@set -e; for f in $$(git grep -l '^func Fuzz' -- '*_test.go'); do \
		for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f | grep -E '$(FUZZ)'); do \
			echo "== $$t ($$(dirname $$f)) for $(FUZZTIME)"; \
			$(GO) test $(GOTAGS) -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) ./$$(dirname $$f)/; \
		done; done

test-short:
	FOLIO_SKIP_S3=1 $(GO) test $(GOTAGS) -short -count=1 ./...

lint: vulncheck
	$(GO) vet $(GOTAGS) ./...
	$(if $(TAGS),$(GO) vet $(NOTAG_PKGS))
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)

# vulncheck runs govulncheck (golang.org/x/vuln), built from the Go module
# proxy into .bin/ like versitygw, and fails when the code calls a function
# with a known vulnerability (imported-but-uncalled ones are only counted).
# The database is the OSV data that the module golang.org/x/vulndb carries
# (data/osv), fetched from the same proxy at a pinned version and indexed
# into .bin/vulndb-<version>/ by that module's own indexdb command: no other
# service is needed. GOVULNDB=<url or file:///dir> checks against another
# copy. A newer database: VULNDB_VERSION=$$(go list -m -f '{{.Version}}'
# golang.org/x/vulndb@latest) make vulncheck.
GOVULNCHECK_VERSION ?= v1.9.0
VULNDB_VERSION      ?= v0.0.0-20261105234957-e22db6528018
GOVULNCHECK := $(BIN)/govulncheck
INDEXDB     := $(BIN)/indexdb-$(VULNDB_VERSION)
VULNDB_DIR  := $(BIN)/vulndb-$(VULNDB_VERSION)
GOVULNDB    ?= file://$(VULNDB_DIR)

vulncheck: $(GOVULNCHECK) $(if $(filter file://$(VULNDB_DIR),$(GOVULNDB)),$(VULNDB_DIR))
	$(GOVULNCHECK) -db $(GOVULNDB) $(GOTAGS) ./...

$(GOVULNCHECK):
	GOBIN=$(BIN) $(GO) install golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION)
$(INDEXDB):
	@mkdir -p $(BIN)/indexdb.tmp
	GOBIN=$(BIN)/indexdb.tmp $(GO) install golang.org/x/vulndb/cmd/indexdb@$(VULNDB_VERSION)
	mv $(BIN)/indexdb.tmp/indexdb $@ && rmdir $(BIN)/indexdb.tmp
$(VULNDB_DIR): | $(INDEXDB)
	@src=$$($(GO) mod download -json golang.org/x/vulndb@$(VULNDB_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
		test -d "$$src/data/osv" || { echo "vulncheck: golang.org/x/vulndb@$(VULNDB_VERSION) has no data/osv"; exit 1; }; \
		rm -rf $@.tmp && $(INDEXDB) -vulns "$$src/data/osv" -out $@.tmp && mv $@.tmp $@

# dist builds the release tarballs into .bin/dist/: for each of
# DIST_ARCHES, folio-<version>-linux-<arch>.tar.gz holding the binary,
# LICENSE, README.md, CHANGELOG.md, docs/ and SHA256SUMS of those files,
# plus .bin/dist/SHA256SUMS of the tarballs. The WebP encoder is C (cgo),
# so every build needs a C compiler for its target: arm64 on an amd64
# machine uses Debian's gcc-aarch64-linux-gnu. Each build gets the tags
# whose headers its compiler finds (libjpeg, libavif; arm64 needs Debian's
# libjpeg62-turbo-dev:arm64 and libavif-dev:arm64, multiarch); a target
# without a C compiler is skipped with a note. `folio version` names the
# tags a binary was built with; docs/deploy.md lists what each needs.
DIST        := $(BIN)/dist
DIST_ARCHES ?= amd64 arm64
HOST_ARCH   := $(shell $(GO) env GOARCH)
DIST_CC_amd64 ?= $(if $(filter amd64,$(HOST_ARCH)),$(CC),x86_64-linux-gnu-gcc)
DIST_CC_arm64 ?= $(if $(filter arm64,$(HOST_ARCH)),$(CC),aarch64-linux-gnu-gcc)
DIST_FILES  := LICENSE README.md CHANGELOG.md docs

dist:
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; mtime=$$(git log -1 --format=%ct 2>/dev/null || date +%s); \
	for arch in $(DIST_ARCHES); do \
		case $$arch in amd64) cc="$(DIST_CC_amd64)";; arm64) cc="$(DIST_CC_arm64)";; \
			*) echo "dist: unknown arch $$arch"; exit 1;; esac; \
		if ! command -v $$cc >/dev/null 2>&1; then \
			echo "dist: linux/$$arch skipped: no C compiler $$cc (Debian: gcc-aarch64-linux-gnu for arm64)"; continue; fi; \
		tags=; \
		printf '#include <stdio.h>\n#include <jpeglib.h>\n' | $$cc -E -x c - >/dev/null 2>&1 && tags=$$tags,libjpeg; \
		printf '#include <avif/avif.h>\n' | $$cc -E -x c - >/dev/null 2>&1 && tags=$$tags,libavif; \
		tags=$${tags#,}; name=folio-$(VERSION)-linux-$$arch; dir=$(DIST)/$$name; \
		echo "dist: linux/$$arch, CC=$$cc, tags: $${tags:-none}"; \
		mkdir -p $$dir; \
		CGO_ENABLED=1 GOOS=linux GOARCH=$$arch CC=$$cc $(GO) build -trimpath -tags "$$tags" \
			-ldflags "$(LDFLAGS)" -o $$dir/folio ./cmd/folio; \
		cp -R $(DIST_FILES) $$dir/; \
		(cd $$dir && find . -type f ! -name SHA256SUMS | sort | xargs sha256sum > SHA256SUMS); \
		tar -C $(DIST) --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$$mtime \
			-czf $(DIST)/$$name.tar.gz $$name; \
		rm -rf $$dir; \
	done
	cd $(DIST) && sha256sum *.tar.gz > SHA256SUMS && cat SHA256SUMS

clean:
	rm -rf $(BIN) $(DATA)

# bench measures what users feel (cmd/folio-bench): cold start, what a
# content model adds to it (group model), push to serve, throughput against nginx, media search, derivatives, an image
# crop made on request against vipsthumbnail (Debian's libvips-tools,
# installed when missing like nginx and wrk), a 50 MB
# upload, the media library in a bucket on versitygw (migration, a fresh
# box's start, cross-box visibility). Generated sites and libraries, and
# the migrated bucket, are cached under bench/out/data; folio is built
# with libjpeg-turbo (installed when missing, like nginx);
# the table is printed and written to bench/out/results.md. nginx and wrk
# are installed from Debian's mirror when missing (needs root); without
# them the Go load generator is used and the nginx comparison skipped. BENCH_FLAGS=-quick for a short run, -only to pick.
BENCH_OUT   ?= $(CURDIR)/bench/out
BENCH_FLAGS ?=
FOLIO_GEN   := $(BIN)/folio-gen
FOLIO_BENCH := $(BIN)/folio-bench

bench: build $(VERSITYGW)
	@test -n "$(LIBJPEG)" || \
		{ [ "$$(id -u)" = 0 ] && { apt-get install -y -qq libjpeg62-turbo-dev || \
			{ apt-get update -qq && apt-get install -y -qq libjpeg62-turbo-dev; }; } && \
			$(MAKE) --no-print-directory build; } || \
		echo "bench: libjpeg-turbo's headers missing (libjpeg62-turbo-dev); folio decodes JPEG with Go's image/jpeg"
	$(GO) build $(GOTAGS) -o $(FOLIO_GEN) ./cmd/folio-gen
	$(GO) build $(GOTAGS) -o $(FOLIO_BENCH) ./cmd/folio-bench
	@{ command -v nginx || test -x /usr/sbin/nginx; } >/dev/null && command -v wrk >/dev/null || \
		{ [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq nginx-light wrk; } || \
		echo "bench: nginx or wrk missing; the Go load generator is used and nginx is skipped if absent"
	@command -v vipsthumbnail >/dev/null || \
		{ [ "$$(id -u)" = 0 ] && { apt-get install -y -qq libvips-tools || \
			{ apt-get update -qq && apt-get install -y -qq libvips-tools; }; }; } || \
		echo "bench: vipsthumbnail missing (libvips-tools); the crop group skips its comparison"
	@mkdir -p $(BENCH_OUT)
	$(FOLIO_BENCH) -folio $(FOLIO) -gen $(FOLIO_GEN) -versitygw $(VERSITYGW) \
		-data $(BENCH_OUT)/data -out $(BENCH_OUT)/results.md $(BENCH_FLAGS)

# bench-scale (issue 34) serves a site of a million files on one box:
# first start and restart (time, CPU, peak RSS, a heap profile each),
# lists at deep offsets, push to serve, a branch one file ahead, and
# request throughput against the same at 10k files. Not part of bench.
# The 1M site is generated once (about 15 minutes, 7 GB with its bare
# clone) and cached under bench/out/data; a run then takes 4 minutes
# with -runs 1 on a quiet box (-runs 3 adds two first starts of ~75 s
# and two restarts), and up to 11 GB of memory for one folio (during
# its pushes). SCALE_FLAGS="-runs 1 -scale-size 100000" for a short run.
SCALE_FLAGS ?= -runs 3 -duration 5s
bench-scale: build
	$(GO) build $(GOTAGS) -o $(FOLIO_GEN) ./cmd/folio-gen
	$(GO) build $(GOTAGS) -o $(FOLIO_BENCH) ./cmd/folio-bench
	@mkdir -p $(BENCH_OUT)
	$(FOLIO_BENCH) -folio $(FOLIO) -gen $(FOLIO_GEN) -versitygw $(VERSITYGW) \
		-data $(BENCH_OUT)/data -out $(BENCH_OUT)/results-scale.md -only scale $(SCALE_FLAGS)
