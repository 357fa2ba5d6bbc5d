package kind

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	kindcluster "sigs.k8s.io/kind/pkg/cluster"

	"github.com/admission-conformance/admission-conformance/internal/rundir"
)

// DefaultLedgerDir is where created clusters are written down:
// $XDG_STATE_HOME (or ~/.local/state)/admission-conformance/kind-clusters.
func DefaultLedgerDir() string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "admission-conformance", "kind-clusters")
}

// recordCluster writes name down before kind creates anything, so a run
// killed mid-create still leaves a trace for cleanup.
func recordCluster(dir, name string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("kind cluster ledger: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("pid %d\n", os.Getpid())), 0o644); err != nil {
		return fmt.Errorf("kind cluster ledger: %w", err)
	}
	return nil
}

func forgetCluster(dir, name string) { _ = os.Remove(filepath.Join(dir, name)) }

// Leftovers lists the clusters written down in dir: created by a run that
// did not delete them (killed, or its delete failed).
func Leftovers(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("kind cluster ledger: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// DeleteLeftovers deletes every cluster in the ledger at dir that kind
// still knows, and forgets the rest. It returns the names it deleted.
func DeleteLeftovers(dir string, opts ...Option) ([]string, error) {
	names, err := Leftovers(dir)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	k := New(opts...).kind()
	existing, err := k.List()
	if err != nil {
		return nil, fmt.Errorf("list kind clusters: %w", err)
	}
	known := map[string]bool{}
	for _, n := range existing {
		known[n] = true
	}
	tmp, err := rundir.Create("", rundir.KindPrefix)
	if err != nil {
		return nil, err
	}
	defer rundir.Remove(tmp)
	var deleted []string
	for _, n := range names {
		if known[n] {
			if err := deleteSettled(k, n, filepath.Join(tmp, "kubeconfig")); err != nil {
				return deleted, err
			}
			deleted = append(deleted, n)
		}
		forgetCluster(dir, n)
	}
	return deleted, nil
}

// deleteSettled deletes the cluster until no node of it shows up for a few
// seconds: a run killed mid-create leaves `docker run` children behind that
// may still add a node after the first delete.
func deleteSettled(k *kindcluster.Provider, name, kubeconfig string) error {
	for quiet := 0; quiet < 3; {
		nodes, err := k.ListNodes(name)
		if err != nil {
			return fmt.Errorf("nodes of kind cluster %s: %w", name, err)
		}
		if len(nodes) == 0 {
			quiet++
			time.Sleep(time.Second)
			continue
		}
		quiet = 0
		if err := k.Delete(name, kubeconfig); err != nil {
			return fmt.Errorf("delete kind cluster %s: %w", name, err)
		}
	}
	return nil
}
