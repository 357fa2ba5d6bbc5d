package coverage

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// Attribution says which specs ran each covered block: from a serial run
// whose cluster process wrote its counters after every case
// (runner.CoverCasesEnv), so a block is attributed to the spec of every
// case during which (or during whose cleanup's tail) it ran. Blocks that ran
// only while the cluster started are attributed to StartUp. Node-side
// blocks (NodeSide) are not in it: the kubelet runs in other processes.
type Attribution struct {
	// Specs are the spec short names, sorted; Blocks index into it.
	Specs []string `json:"specs"`
	// Blocks maps a block key to the indexes of the specs that ran it.
	Blocks map[string][]int `json:"blocks"`
}

// StartUp is the name under which blocks run by the cluster's start-up
// are attributed.
const StartUp = "_start"

// NewAttribution builds an attribution from each spec's profile.
func NewAttribution(bySpec map[string]Profile) Attribution {
	a := Attribution{Blocks: map[string][]int{}}
	for s := range bySpec {
		a.Specs = append(a.Specs, s)
	}
	sort.Strings(a.Specs)
	for i, s := range a.Specs {
		for key := range bySpec[s].Covered() {
			a.Blocks[key] = append(a.Blocks[key], i)
		}
	}
	return a
}

// SpecsOf names the specs that ran the block (StartUp included).
func (a Attribution) SpecsOf(key string) []string {
	var out []string
	for _, i := range a.Blocks[key] {
		out = append(out, a.Specs[i])
	}
	return out
}

// WriteAttribution writes a as JSON.
func WriteAttribution(file string, a Attribution) error {
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}

// ReadAttribution reads what WriteAttribution wrote.
func ReadAttribution(file string) (Attribution, error) {
	var a Attribution
	data, err := os.ReadFile(file)
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("%s: %w", file, err)
	}
	return a, nil
}
