// Command release-inventory derives, from the pinned Kubernetes sources in
// the Go module cache, what the release guard (internal/contract/release)
// cannot ask the linked code: the kubelet's pod admit chain and the feature
// gates admission code reads. It writes
// internal/contract/release/zz_generated_pinned.go, and the pinned
// version's whole inventory (linked registries and derived chain) as
// internal/contract/release/inventories/VERSION.json; run it through
// `go generate ./internal/contract/release` after moving the pin (a test
// fails until you do).
//
// With -decide (hack/update-kubernetes.sh --decide runs it after the move)
// it then prints what the release table says must be decided for the
// linked version: every item the table does not decide (unknown) or decides
// although the version no longer has it (stale), and what changed from the
// newest kept inventory of an older version (new, removed, stage changed,
// order changed) with the table's decision for each; exit 1 while anything
// is undecided.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/internal/contract/release"
)

func main() {
	out := flag.String("o", "internal/contract/release/"+release.GeneratedFile, "the file to write")
	stored := flag.String("stored", "internal/contract/release", "write the inventory to DIR/"+release.InventoryDir+"/VERSION.json too (empty: not)")
	decide := flag.Bool("decide", false, "then print what the release table must decide for the linked version (exit 1 while anything is undecided)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "release-inventory: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	inv, err := run(*out, *stored)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release-inventory:", err)
		os.Exit(1)
	}
	if *decide {
		undecided, err := release.WriteDecisions(os.Stdout, inv)
		if err != nil {
			fmt.Fprintln(os.Stderr, "release-inventory:", err)
			os.Exit(1)
		}
		if undecided > 0 {
			os.Exit(1)
		}
	}
}

func run(out, stored string) (release.Inventory, error) {
	mods, err := release.PinnedModules(".")
	if err != nil {
		return release.Inventory{}, err
	}
	gates := map[string]bool{}
	for _, g := range release.PinnedGates() {
		gates[g] = true
	}
	d, err := release.Derive(mods, gates)
	if err != nil {
		return release.Inventory{}, err
	}
	if err := d.Write(out); err != nil {
		return release.Inventory{}, err
	}
	inv, err := release.InventoryFrom(d)
	if err != nil || stored == "" {
		return inv, err
	}
	_, err = release.WriteStored(stored, inv)
	return inv, err
}
