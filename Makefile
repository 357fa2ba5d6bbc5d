# admission-conformance. `make conformance` runs the full conformance run on
# the embedded cluster; `make test` runs the harness's tests (README.md).
GO       ?= go
# A checkout moved to a release that needs a newer Go than this one
# (hack/update-kubernetes.sh v1.38.0-beta.0) has a toolchain line in go.mod:
# its go commands use that toolchain (fetched through the module proxy).
# The default pin has none and builds with the machine's Go.
GO_TOOLCHAIN := $(shell sed -n 's/^toolchain \(go1\.[0-9.]*\)$$/\1/p' go.mod)
ifneq ($(GO_TOOLCHAIN),)
ifeq ($(origin GOTOOLCHAIN),undefined)
export GOTOOLCHAIN := $(GO_TOOLCHAIN)
endif
endif
BIN      := _output/run-conformance
VERSION  ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X github.com/admission-conformance/admission-conformance/internal/cli.version=$(VERSION)
ARTIFACTS ?= _artifacts
# Every test binary that links the control plane costs a link of ~1 GB of
# objects; -p 1 keeps two such links from running at once on small machines.
TEST_FLAGS ?= -p 1 -timeout 60m

.PHONY: estimates busy-runs quiet-runs build conformance conformance-versions test fuzz bench bench-run lint clean report-screenshot kind-image test-kind contract-docs mutation mutation-generated coverage matrix-scale

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/run-conformance

conformance: build
	$(BIN) run --report-dir $(ARTIFACTS)

# The schedule's kept estimates (internal/parallel/estimates.json: how long
# each spec took), from a full default run; a new spec fails the tests
# (TestEverySpecHasAKeptEstimate) until they are written again.
estimates: build
	$(BIN) run --report-dir $(ARTIFACTS)/estimates
	$(GO) run ./hack/estimates $(ARTIFACTS)/estimates/results.json > internal/parallel/estimates.json

# The full embedded run on each Kubernetes version (hack/versions), one after
# another: each builds in its own copy of the repo, moved to the version by
# hack/update-kubernetes.sh, in $(VERSIONS_DIR)/VERSION (reused; Go's caches
# are shared). Reports land in $(ARTIFACTS)/versions/VERSION/, the matrix of
# every case's state and every measurement per version in
# $(ARTIFACTS)/versions/matrix.{txt,json,html}. RUN_FLAGS go to each run
# (RUN_FLAGS="--suite ordering --focus X"). The tool's exit codes (make turns
# any failure into its own 2; _output/versions gives them as they are, and
# matrix.json records them): 0 all passed, 1 a case failed, 2 a version could
# not be built or run.
# Pre-releases are versions too (KUBE_VERSIONS="... v1.38.0-beta.0"): their
# column is marked pre-release, and each is built with the Go its go.mod names.
KUBE_VERSIONS ?= v1.35.4 v1.36.3 v1.37.2
VERSIONS_DIR ?= $(HOME)/.cache/admission-conformance/versions
RUN_FLAGS ?=
export RUN_FLAGS
conformance-versions:
	$(GO) build -o _output/versions ./hack/versions
	_output/versions --versions "$(KUBE_VERSIONS)" --workdir $(VERSIONS_DIR) --artifacts $(ARTIFACTS)/versions --harness-version $(VERSION) --run-flags "$$RUN_FLAGS"

# Full runs beside a CPU hog on every core (stress-ng, installed if missing),
# or one after another without it (quiet-runs):
# a line per run with its failed cases and the harness's wake-up lateness.
BUSY_RUNS ?= 10
QUIET_RUNS ?= 30
busy-runs: build
	hack/busy-runs.sh $(BUSY_RUNS) -- $(RUN_FLAGS)

quiet-runs: build
	hack/busy-runs.sh --quiet $(QUIET_RUNS) -- $(RUN_FLAGS)

# The HTML report's browser check leaves its page and screenshot in
# $(ARTIFACTS)/report-screenshot/ (skipped without chromium).
# examples/vendor-suite is a module of its own (a vendor's suite written with
# the public API only, docs/writing-specs.md): its tests build it and run its
# specs on the embedded cluster, with certify and verify.
VENDOR_SUITE := examples/vendor-suite
test:
	REPORT_SCREENSHOT_DIR=$(abspath $(ARTIFACTS))/report-screenshot $(GO) test $(TEST_FLAGS) ./...
	cd $(VENDOR_SUITE) && $(GO) test $(TEST_FLAGS) ./...

# The parsers of every user input, fuzzed one target after another for
# FUZZTIME each (-parallel 1: one fuzzing worker): package:FuzzName. Inputs
# that fail land in the package's testdata/fuzz/FuzzName/, which `go test`
# (and so `make test`) replays with the seeds; so do the new interesting
# inputs the fuzzer found, copied there from Go's cache after each target
# (commit them to keep the corpus). FUZZMINIMIZETIME bounds the
# minimizing of each new input (Go's default, 60s, can take a whole run of
# the slower targets).
FUZZTIME ?= 60s
FUZZMINIMIZETIME ?= 5s
FUZZ_TARGETS ?= \
	./framework/bounds:FuzzSet \
	./framework/results:FuzzRead \
	./internal/provider/kubeconfig:FuzzLoadConfig \
	./internal/clusterrun:FuzzUnpack \
	./internal/cli:FuzzOptionsFile \
	./internal/engine/matrixrun:FuzzMatrixFile \
	./internal/engine/matrixrun:FuzzTargetFlag \
	./internal/runconfig:FuzzLabelFilter \
	./internal/cli:FuzzFocusSkip \
	./internal/cli:FuzzBoundFlag \
	./internal/runconfig:FuzzEtcdDelay \
	./internal/runconfig:FuzzRerunFailed \
	./internal/cli:FuzzReportResults \
	./internal/cli:FuzzCompareResults \
	./internal/reports:FuzzFetchedResults
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) -parallel 1; \
		cache="$$($(GO) env GOCACHE)/fuzz/$$($(GO) list -m)/$${pkg#./}/$$name"; \
		if [ -d "$$cache" ]; then mkdir -p "$$pkg/testdata/fuzz/$$name" && cp -n "$$cache"/* "$$pkg/testdata/fuzz/$$name/" 2>/dev/null || true; fi; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchtime 5x -timeout 30m ./internal/provider/embedded/

# The full embedded run one spec after another (--parallel 1), then in
# parallel (the machine's default --parallel, or BENCH_PARALLEL), one at a
# time: wall times, time to the first spec, states, and the ratio of the
# medians over BENCH_RUNS runs of each.
BENCH_RUNS ?= 1
BENCH_PARALLEL ?= 0
bench-run: build
	$(GO) run ./hack/bench-run --bin $(BIN) --runs $(BENCH_RUNS) --parallel $(BENCH_PARALLEL)

# Renders the HTML report of a synthetic run in headless Chromium (Debian:
# apt-get install chromium) and checks the plots are visible; the page and
# the screenshot land in $(ARTIFACTS)/report-screenshot/. Without chromium
# the test is reported as skipped.
report-screenshot:
	REPORT_SCREENSHOT_DIR=$(abspath $(ARTIFACTS))/report-screenshot $(GO) test -count=1 -v -run TestReportRendersInChromium ./internal/report/htmlreport/

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) build -o _output/apiboundary-vet ./hack/apiboundary/cmd/apiboundary-vet
	$(GO) vet -vettool=$(abspath _output/apiboundary-vet) ./...
	cd $(VENDOR_SUITE) && $(GO) vet ./...

clean:
	rm -rf _output $(ARTIFACTS)

# docs/contract.md is the contract inventory (internal/contract) and the
# release table (internal/contract/release) rendered as
# `run-conformance list --contract --markdown` prints it; a test fails when
# it is out of date.
# The mutation kit (hack/mutants): builds the harness against each mutant of
# the pinned Kubernetes modules, runs the specs that must catch it, prints
# the table (also in $(MUTATION_DIR)/table.md). MUTANTS=name,name runs some.
MUTATION_DIR ?= $(HOME)/.cache/admission-conformance/mutation
MUTANTS ?=
mutation:
	$(GO) run ./hack/mutants/cmd/mutation --workdir $(MUTATION_DIR) $(if $(MUTANTS),--only $(MUTANTS))

contract-docs:
	$(GO) run ./hack/contract-docs -o docs/contract.md

# Statement coverage of the pinned admission code by a full default run
# (hack/coverage): builds run-conformance with Go's binary coverage over
# hack/coverage.Packages (a separate binary, _output/coverage/; the default
# build has no instrumentation), runs the full default selection with
# GOCOVERDIR for every process, prints coverage per package with how each
# uncovered statement is decided (hack/coverage/decisions.yaml), and writes
# coverage.out, coverage.html, codecoverage.json and results.json (with
# codeCoverage, for `compare`) into $(COVERAGE_DIR), and the kept snapshot
# hack/coverage/uncovered.txt. With COVERAGE_ATTRIBUTION=1 (the default) it
# also runs the selection serially to attribute every covered block to the
# specs that ran it (attribution.json), which make mutation-generated needs.
# A cold coverage build takes ~10 min on 2 cores; the runs ~2 and ~5 min.
COVERAGE_DIR ?= $(ARTIFACTS)/coverage
COVERAGE_ATTRIBUTION ?= 1
coverage:
	$(GO) run ./hack/coverage/cmd/coverage --out $(COVERAGE_DIR) $(if $(filter 1,$(COVERAGE_ATTRIBUTION)),--attribution)

# Generated mutants (hack/mutants/generate): a seeded sample of
# MUTATION_SAMPLE mechanical mutants on the statements make coverage found
# covered, compiled into one build (mutant schemata), each run with the
# specs that cover its statement. Verdicts, score and the survivors' table
# are kept in hack/mutants/generated/; survivors not killed are recorded
# in hack/mutants/generated/equivalent.yaml with the reason.
# MUTANTS=3,17 runs some of the sample again; MUTATION_ARGS=--table only
# judges the kept verdicts against equivalent.yaml again.
MUTATION_SAMPLE ?= 250
MUTATION_SEED ?= 1
MUTATION_ARGS ?=
mutation-generated:
	$(GO) run ./hack/mutants/cmd/generated --coverage $(COVERAGE_DIR) --sample $(MUTATION_SAMPLE) --seed $(MUTATION_SEED) $(if $(MUTANTS),--only $(MUTANTS)) $(MUTATION_ARGS)

# Offline kind (hack/kind/): installs and starts Debian's Docker engine if
# none answers, then builds a kind node image from Debian packages and the Go
# module proxy only (cold ~25 min on 2 cores, cached in $(KIND_CACHE)).
KUBE_VERSION := $(shell sed -n 's/^\tk8s.io\/kubernetes \(v[0-9.]*[-a-z0-9.]*\)$$/\1/p' go.mod | head -n1)
KIND_IMAGE ?= admission-conformance/kind-node:$(KUBE_VERSION)
KIND_CACHE ?= /var/cache/admission-conformance-kind
KIND_TOPOLOGIES ?= single,ha

kind-image:
	hack/kind/docker-up.sh
	KUBE_VERSION=$(KUBE_VERSION) KIND_CACHE=$(KIND_CACHE) NODE_IMAGE=$(KIND_IMAGE) hack/kind/build-node-image.sh

# The matrix's cost as it grows: a matrix of N kind clusters created at once,
# for each N of MATRIX_SIZES: wall time, the harness's processes on this host
# (peak RSS, CPU seconds) and the whole host's CPU and memory, kind's node
# containers included. Table in $(ARTIFACTS)/matrix-scale/scale.txt.
MATRIX_SIZES ?= 2 3
MATRIX_SUITES ?=
matrix-scale: build kind-image
	$(GO) run ./hack/matrix-scale -bin $(BIN) -node-image $(KIND_IMAGE) -suites "$(MATRIX_SUITES)" \
		-dir $(ARTIFACTS)/matrix-scale $(MATRIX_SIZES)

# All suites on kind clusters (single and ha); the kubeconfig provider
# against a kind cluster (unchanged after a run; SIGKILL then cleanup); the
# in-cluster mode on kind single and ha (the local run's case states, nothing
# left; a killed client, results, cleanup); a matrix of kind single and ha,
# its matrix.html screenshot in headless Chromium (installed from Debian if
# missing) left in $(ARTIFACTS)/kind/ with the matrix dir.
test-kind: kind-image
	command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	ADMISSION_CONFORMANCE_KIND_IMAGE=$(KIND_IMAGE) ADMISSION_CONFORMANCE_KIND_TOPOLOGIES=$(KIND_TOPOLOGIES) \
	ADMISSION_CONFORMANCE_KIND_ARTIFACTS=$(abspath $(ARTIFACTS))/kind \
		$(GO) test -count=1 -v -timeout 150m -run 'TestKindRunsAllSuites|TestKindStaticReloadFailsOnANodeThatNeverReloads|TestNodePluginSpecsFailOnABrokenHostOnKind|TestKubeconfigProviderOnKind|TestInClusterOnKind|TestLeastPrivilegeOnKind|TestMatrixOfKindClusters|TestCleanupDeletesKindClustersOfKilledRuns' ./internal/cli/
