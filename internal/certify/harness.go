package certify

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract"
	"github.com/admission-conformance/admission-conformance/internal/contract/release"
)

// Harness is harness.json: which harness made the bundle, the digest of
// its contract inventory and of the run's case selection.
type Harness struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Version is the harness version (internal/cli.version, -ldflags).
	Version string `json:"version"`
	// Commit is the VCS revision Go stamped into the binary ("-dirty" when
	// the tree had changes); empty when it was built without VCS stamping.
	Commit string `json:"commit,omitempty"`
	// Kubernetes is the k8s.io/kubernetes module the binary embeds.
	Kubernetes string `json:"kubernetes,omitempty"`
	GoVersion  string `json:"goVersion,omitempty"`
	// ContractDigest is the sha256 of the contract inventory as
	// `list --contract -o json` prints it (ContractDigestOf says so).
	ContractDigest   string `json:"contractDigest"`
	ContractDigestOf string `json:"contractDigestOf"`
	// SelectionDigest is the sha256 of SelectionText of the results.
	SelectionDigest   string `json:"selectionDigest"`
	SelectionDigestOf string `json:"selectionDigestOf"`
	// Selected and Cases count the selected cases and all cases.
	Selected int `json:"selected"`
	Cases    int `json:"cases"`
}

const (
	contractDigestOf  = "the output of 'run-conformance list --contract -o json' (clauses and release table, one JSON line)"
	selectionDigestOf = "one line per case of results.json, sorted: 'selected' or 'not-selected', TAB, suite, TAB, case name"
)

// ContractJSON is the canonical serialisation of the contract inventory:
// exactly what `list --contract -o json` prints.
func ContractJSON() ([]byte, error) {
	rel, err := release.PinnedReport()
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(release.ContractJSON{Clauses: contract.All(), Release: rel})
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil // json.Encoder's newline
}

// ContractDigest is the digest of ContractJSON.
func ContractDigest() (string, error) {
	data, err := ContractJSON()
	if err != nil {
		return "", err
	}
	return Digest(data), nil
}

// SelectionText lists the run's cases, selected or not, one a line, sorted.
func SelectionText(res results.Results) (text string, selected int) {
	lines := make([]string, 0, len(res.Specs))
	for _, s := range res.Specs {
		mark := "selected"
		if s.Message == results.NotSelected {
			mark = "not-selected"
		} else {
			selected++
		}
		lines = append(lines, mark+"\t"+s.Suite+"\t"+s.Name+"\n")
	}
	sort.Strings(lines)
	return strings.Join(lines, ""), selected
}

// VCSCommit is the revision Go stamped into the running binary, with
// "-dirty" when its tree was modified; empty without stamping.
func VCSCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// NewHarness describes this harness for res.
func NewHarness(version, commit, kubernetes, goVersion string, res results.Results) (Harness, error) {
	digest, err := ContractDigest()
	if err != nil {
		return Harness{}, fmt.Errorf("contract inventory: %w", err)
	}
	text, selected := SelectionText(res)
	return Harness{APIVersion: APIVersion, Kind: "Harness", Version: version, Commit: commit, Kubernetes: kubernetes, GoVersion: goVersion,
		ContractDigest: digest, ContractDigestOf: contractDigestOf,
		SelectionDigest: Digest([]byte(text)), SelectionDigestOf: selectionDigestOf,
		Selected: selected, Cases: len(res.Specs)}, nil
}

// SameHarness reports whether h names the harness other: the same version
// and, when both carry one, the same commit.
func SameHarness(h, other Harness) bool {
	if h.Version != other.Version {
		return false
	}
	return h.Commit == "" || other.Commit == "" || h.Commit == other.Commit
}
