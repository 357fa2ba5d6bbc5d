package apiboundary_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/hack/apiboundary"
)

// publicPackages are the packages a spec author imports, one line each in
// the order of the list. Change it deliberately: a package added here is an
// API the project promises to keep; one removed is a break for vendors.
//
// The spec author's API:
var publicPackages = []string{
	"conformance",               // Main: the run-conformance command line over the specs a binary registers
	"framework/spec",            // a spec's metadata (suite, profile, features, seed clause, isolation) and the registry; RegisterSuite
	"framework/harness",         // Describe, the per-case Framework (clients, namespace, cleanup, bounds), scoped fake webhooks, Record
	"framework/features",        // the feature registry specs name and clusters declare
	"framework/bounds",          // every wait and bound, with defaults, overridable by the user
	"framework/results",         // results.json: cases, states, measurements (Measurement is what Record takes)
	"framework/fakewebhook",     // the programmable webhook server, its behaviours and its journal of calls; Forwarder
	"framework/enforce",         // "is it enforced yet?": marker probes until the enforced answer, per replica
	"framework/quiet",           // the window a propagation-measuring spec holds (Isolation.Quiet)
	"framework/mutatingpolicy",  // the MutatingAdmissionPolicy API whatever minor the harness is built with
	"framework/identity",        // the identities specs may impersonate
	"framework/cluster",         // what a spec may ask of the cluster (replicas, nodes, static manifests, declared features)
	"framework/audit",           // the apiservers' audit logs, for admission's annotations
	"framework/metrics",         // the apiservers' /metrics counters
	"framework/pki",             // CAs and certificates for webhook TLS (and the reference initializers' serving certificate)
	"framework/staticmanifest",  // static admission manifests written into the apiservers' watched directories
	"framework/runobjects",      // the cluster-level kinds a run creates and labels, which cleanup sweeps
	"framework/nodes",           // what node specs know of nodes: labels, resources, plugin hosts, a pod's decision
	"framework/nodedecision",    // node-side specs: pick a node, bind a pod, get the kubelet's decision, install fake plugins
	"framework/fakenodeplugin",  // programmable KEP-2823 node admission plugins (shell, gRPC, socket) and their journals
	"framework/fakeinitializer", // a programmable initializer controller for seed 002's initializers

	// Public because public packages above need them, not for specs to
	// call; internal/ and hack/ use them too, so a copy would be a second
	// one to keep:
	"framework/atomicfile", // a file replaced whole (staticmanifest, fakenodeplugin, nodedecision: files a component watches)
	"framework/splice",     // two connections joined both ways (fakewebhook.Forwarder, which a spec uses, relays with it)
}

type pkg struct {
	ImportPath string
	Deps       []string
	Imports    []string
}

// packages lists the module's packages (non-test imports, and all
// dependencies within the module), by path relative to the module.
func packages(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", apiboundary.Module+"/...")
	cmd.Dir = repoRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	all := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p.ImportPath = local(p.ImportPath)
		p.Deps = ours(p.Deps)
		p.Imports = ours(p.Imports)
		all[p.ImportPath] = p
	}
	return all
}

func local(path string) string {
	rel, _ := apiboundary.Local(path)
	return rel
}

// ours keeps this module's packages of paths, relative to the module.
func ours(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rel, ok := apiboundary.Local(p); ok {
			out = append(out, rel)
		}
	}
	return out
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func publicSet() []string {
	var out []string
	for _, p := range publicPackages {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// TestPublicPackagesAreTheListedOnes: the packages under framework/ (and
// the door) are exactly publicPackages.
func TestPublicPackagesAreTheListedOnes(t *testing.T) {
	all := packages(t)
	var public []string
	for path := range all {
		if apiboundary.Public(path) {
			public = append(public, path)
		}
	}
	slices.Sort(public)
	want := publicSet()
	for _, p := range public {
		if !slices.Contains(want, p) {
			t.Errorf("%s is public (under framework/) but not in publicPackages: list it (an API to keep) or move it under internal/", p)
		}
	}
	for _, p := range want {
		if !slices.Contains(public, p) {
			t.Errorf("publicPackages lists %s, which is no public package of the module", p)
		}
	}
	t.Logf("%d public packages", len(public))
}

// TestPublicPackagesImportNothingInternal: no package under framework/
// reaches internal/, directly or through any package of this module;
// nothing public reaches the suites, the commands or hack/.
func TestPublicPackagesImportNothingInternal(t *testing.T) {
	all := packages(t)
	for path, p := range all {
		if !apiboundary.Public(path) {
			continue
		}
		for _, d := range p.Deps {
			if why := apiboundary.Forbidden(path, d); why != "" {
				t.Errorf("%s imports %s (through %s): %s", path, d, via(all, path, d), why)
			}
		}
	}
}

// TestReferenceImportsNoFramework: framework/ may import the reference
// implementations; they import nothing of the harness.
func TestReferenceImportsNoFramework(t *testing.T) {
	all := packages(t)
	for path, p := range all {
		if !strings.HasPrefix(path, "reference/") && path != "reference" {
			continue
		}
		for _, d := range p.Deps {
			if why := apiboundary.Forbidden(path, d); why != "" {
				t.Errorf("%s imports %s (through %s): %s", path, d, via(all, path, d), why)
			}
		}
	}
}

// via is a chain of direct imports from one package to a dependency.
func via(all map[string]pkg, from, to string) string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			chain := []string{p}
			for q := prev[p]; q != ""; q = prev[q] {
				chain = append([]string{q}, chain...)
			}
			return strings.Join(chain, " -> ")
		}
		for _, i := range all[p].Imports {
			if _, seen := prev[i]; !seen {
				prev[i] = p
				queue = append(queue, i)
			}
		}
	}
	return "?"
}

// TestVendorSuiteUsesThePublicAPIOnly: examples/vendor-suite is what a
// vendor writes; it imports nothing of the module but public packages.
func TestVendorSuiteUsesThePublicAPIOnly(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "examples", "vendor-suite")
	public := publicSet()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := apiboundary.Local(p)
			if !ok {
				continue
			}
			n++
			if !slices.Contains(public, rel) {
				t.Errorf("%s imports %s, which is not public", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("%s imports nothing of the module", dir)
	}
}

// TestVendorSuiteReplacesKubernetesLikeTheModule: replaces apply only in
// the main module, so the example repeats go.mod's block; a move of the pin
// (hack/update-kubernetes.sh) rewrites both.
func TestVendorSuiteReplacesKubernetesLikeTheModule(t *testing.T) {
	root := repoRoot(t)
	ours := replaceBlock(t, filepath.Join(root, "go.mod"))
	theirs := replaceBlock(t, filepath.Join(root, "examples", "vendor-suite", "go.mod"))
	for i := range ours {
		ours[i] = strings.Replace(ours[i], "=> ./", "=> ../../", 1) // stand-ins, by path
	}
	if len(ours) == 0 || !slices.Equal(ours, theirs) {
		t.Errorf("examples/vendor-suite/go.mod's Kubernetes replace block differs from go.mod's (run hack/update-kubernetes.sh with the pinned version):\n%s\nvs\n%s",
			strings.Join(theirs, "\n"), strings.Join(ours, "\n"))
	}
}

func replaceBlock(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	in := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		l := s.Text()
		switch {
		case strings.HasPrefix(l, "// BEGIN kubernetes staging replaces"):
			in = true
		case strings.HasPrefix(l, "// END kubernetes staging replaces"):
			in = false
		case in && strings.Contains(l, "=>"):
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}
