package fields

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
)

// index tells, for the pinned inventory, which paths are leaves and which
// are on the way to one, so a JSON document can be walked against it.
type index struct {
	leaf, prefix map[string]bool
}

var pinnedIndex = sync.OnceValue(func() index {
	ix := index{leaf: map[string]bool{}, prefix: map[string]bool{}}
	for _, p := range Inventory() {
		s := string(p)
		ix.leaf[s] = true
		for i := range s {
			if s[i] == '.' {
				ix.prefix[s[:i]] = true
			}
		}
	}
	return ix
})

// Values flattens a JSON document of the root type: for every inventory
// path the document sets (present and not null), the JSON of its values in
// document order, one per element of the lists on the way. Keys the
// inventory does not know (apiVersion, kind) are ignored.
func Values(root string, doc []byte) (map[Path][]string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	out := map[Path][]string{}
	pinnedIndex().walk(v, root, out)
	return out, nil
}

// Paths returns the paths a document sets, sorted.
func Paths(root string, doc []byte) ([]Path, error) {
	vals, err := Values(root, doc)
	if err != nil {
		return nil, err
	}
	return sortedKeys(vals), nil
}

func (ix index) walk(v any, cur string, out map[Path][]string) {
	if v == nil {
		return
	}
	if ix.leaf[cur] {
		b, _ := json.Marshal(v)
		out[Path(cur)] = append(out[Path(cur)], string(b))
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, child := range obj {
		next := cur + "." + k
		if list, isList := child.([]any); isList && ix.prefix[next+"[]"] {
			for _, e := range list {
				ix.walk(e, next+"[]", out)
			}
			continue
		}
		if ix.leaf[next] || ix.prefix[next] {
			ix.walk(child, next, out)
		}
	}
}

// Changed returns the paths whose values differ between two flattenings
// of one object, leaving out metadata and status, which every update and
// the apiserver's controllers change.
func Changed(before, after map[Path][]string) []Path {
	diff := map[Path][]string{}
	for _, m := range []map[Path][]string{before, after} {
		for p := range m {
			if rel := strings.SplitN(string(p), ".", 2); len(rel) == 2 && (rel[1] == "metadata" || strings.HasPrefix(rel[1], "status.")) {
				continue
			}
			if strings.Join(before[p], "\x00") != strings.Join(after[p], "\x00") {
				diff[p] = nil
			}
		}
	}
	return sortedKeys(diff)
}

// sortedKeys returns m's keys in order, nil for an empty m.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K { return slices.Sorted(maps.Keys(m)) }
