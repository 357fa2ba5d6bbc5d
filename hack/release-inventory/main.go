// Command release-inventory derives, from the pinned Kubernetes sources in
// the Go module cache, what the release guard (framework/contract/release)
// cannot ask the linked code: the kubelet's pod admit chain and the feature
// gates admission code reads. It writes
// framework/contract/release/zz_generated_pinned.go; run it through
// `go generate ./framework/contract/release` after moving the pin (a test
// fails until you do).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/framework/contract/release"
)

func main() {
	out := flag.String("o", "framework/contract/release/"+release.GeneratedFile, "the file to write")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "release-inventory:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	mods, err := release.PinnedModules(".")
	if err != nil {
		return err
	}
	gates := map[string]bool{}
	for _, g := range release.PinnedGates() {
		gates[g] = true
	}
	d, err := release.Derive(mods, gates)
	if err != nil {
		return err
	}
	return d.Write(out)
}
