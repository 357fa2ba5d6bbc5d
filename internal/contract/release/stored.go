package release

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// The inventories of other Kubernetes versions. The release table's
// inventory is read from the Kubernetes the harness links, so the binary
// built on one version cannot derive another's: each is derived where that
// version is linked (hack/update-kubernetes.sh moves a copy of the repo to
// it; there `go generate ./internal/contract/release` writes
// inventories/VERSION.json beside zz_generated_pinned.go, and
// hack/versions does both for every version of the matrix) and kept here,
// so that `list --contract --kubernetes VERSION` prints the table of a
// version the binary does not link, with what changed from the pinned one,
// and TestStoredInventoriesAreDecided holds the table to every version kept
// in any build.

//go:embed inventories/*.json
var storedFS embed.FS

// InventoryDir is where the stored inventories live, relative to this
// package.
const InventoryDir = "inventories"

// InventoryFile is the stored inventory's file name for version v.
func InventoryFile(v string) string { return v + ".json" }

// Stored returns every stored inventory, by version.
func Stored() (map[string]Inventory, error) {
	entries, err := fs.ReadDir(storedFS, InventoryDir)
	if err != nil {
		return nil, err
	}
	out := map[string]Inventory{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := storedFS.ReadFile(path.Join(InventoryDir, e.Name()))
		if err != nil {
			return nil, err
		}
		inv, err := DecodeInventory(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		if InventoryFile(inv.Kubernetes) != e.Name() {
			return nil, fmt.Errorf("%s holds the inventory of Kubernetes %s", e.Name(), inv.Kubernetes)
		}
		out[inv.Kubernetes] = inv
	}
	return out, nil
}

// StoredVersions lists the stored inventories' versions, oldest first.
func StoredVersions() ([]string, error) {
	all, err := Stored()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(all))
	for v := range all {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return versionLess(out[i], out[j]) })
	return out, nil
}

// InventoryOf is the inventory of Kubernetes version v: the linked one for
// the pinned version, else the stored one.
func InventoryOf(v string) (Inventory, error) {
	if v == pinned.Kubernetes {
		return Pinned()
	}
	all, err := Stored()
	if err != nil {
		return Inventory{}, err
	}
	inv, ok := all[v]
	if !ok {
		have := make([]string, 0, len(all))
		for k := range all {
			have = append(have, k)
		}
		sort.Strings(have)
		return Inventory{}, fmt.Errorf("no release inventory of Kubernetes %s (the harness links %s; stored: %s)", v, pinned.Kubernetes, strings.Join(have, ", "))
	}
	return inv, nil
}

// EncodeInventory is the stored form of inv: indented JSON, items in
// inventory order, ending in a newline.
func EncodeInventory(inv Inventory) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(inv); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// DecodeInventory reads a stored inventory.
func DecodeInventory(data []byte) (Inventory, error) {
	var inv Inventory
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&inv); err != nil {
		return inv, err
	}
	if Minor(inv.Kubernetes) == "" || len(inv.Items) == 0 {
		return inv, fmt.Errorf("not a release inventory (Kubernetes %q, %d items)", inv.Kubernetes, len(inv.Items))
	}
	return inv, nil
}

// WriteStored writes inv as dir/inventories/VERSION.json.
func WriteStored(dir string, inv Inventory) (string, error) {
	data, err := EncodeInventory(inv)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, InventoryDir, InventoryFile(inv.Kubernetes))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, data, 0o644)
}

// versionLess orders Kubernetes versions: by minor, patch, then a
// pre-release before its release (alpha < beta < rc < release).
func versionLess(a, b string) bool {
	ka, kb := versionKey(a), versionKey(b)
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return a < b
}

func versionKey(v string) [5]int {
	var k [5]int
	core, pre, hasPre := strings.Cut(strings.TrimPrefix(v, "v"), "-")
	fmt.Sscanf(core, "%d.%d.%d", &k[0], &k[1], &k[2])
	k[3] = 4 // a release sorts after its pre-releases
	if hasPre {
		kind, n, _ := strings.Cut(pre, ".")
		k[3] = map[string]int{"alpha": 1, "beta": 2, "rc": 3}[kind]
		fmt.Sscanf(n, "%d", &k[4])
	}
	return k
}

// ChangeKind is how an item changed between two versions.
type ChangeKind string

// The change kinds, in print order.
const (
	New          ChangeKind = "new"
	Removed      ChangeKind = "removed"
	StageChanged ChangeKind = "stage changed"
	OrderChanged ChangeKind = "order changed"
)

// ChangeKinds lists the change kinds in print order.
var ChangeKinds = []ChangeKind{New, Removed, StageChanged, OrderChanged}

// Change is one item that differs between two versions' inventories.
type Change struct {
	Change ChangeKind
	Kind   Kind
	Name   string
	// From and To say what it was and is: the item's state (a gate's
	// stage and default, a plugin's default, a handler's guard) or its
	// neighbours in its order.
	From, To string `json:",omitempty"`
	// Decision is how the table decides the item at the newer version
	// (for a removed item: at the older one).
	Decision Disposition
	Clauses  []string `json:",omitempty"`
	Reason   string   `json:",omitempty"`
}

// Diff lists what changed from inventory a to inventory b: items b has and
// a does not (new), items a has and b does not (removed), items whose state
// differs (stage changed: a gate's stage, default or lock, a plugin's
// default, a handler's guard), and items whose place among the items both
// have differs (order changed: plugins in AllOrderedPlugins, handlers in
// the chain; an item merely shifted by a new or removed neighbour has not
// changed order). Each change carries the table's decision, at b (at a for
// removed items).
func Diff(a, b Inventory, table []Entry) []Change {
	ra, rb := Build(a, table), Build(b, table)
	rowA, rowB := map[string]Row{}, map[string]Row{}
	for _, r := range ra.Rows {
		rowA[key(r.Kind, r.Name)] = r
	}
	for _, r := range rb.Rows {
		rowB[key(r.Kind, r.Name)] = r
	}
	itemA, itemB := map[string]Item{}, map[string]Item{}
	for _, it := range a.Items {
		itemA[key(it.Kind, it.Name)] = it
	}
	for _, it := range b.Items {
		itemB[key(it.Kind, it.Name)] = it
	}
	decided := func(c Change, r Row) Change {
		c.Decision, c.Clauses, c.Reason = r.Disposition, r.Clauses, r.Reason
		return c
	}
	var out []Change
	for _, it := range b.Items {
		k := key(it.Kind, it.Name)
		old, had := itemA[k]
		switch {
		case !had:
			to := it.Why
			if it.Place > 0 {
				to += ", " + placeIn(b, it)
			}
			out = append(out, decided(Change{Change: New, Kind: it.Kind, Name: it.Name, To: to}, rowB[k]))
		case old.State != it.State:
			out = append(out, decided(Change{Change: StageChanged, Kind: it.Kind, Name: it.Name, From: old.State, To: it.State}, rowB[k]))
		}
	}
	for _, it := range a.Items {
		if _, has := itemB[key(it.Kind, it.Name)]; !has {
			out = append(out, decided(Change{Change: Removed, Kind: it.Kind, Name: it.Name, From: it.Why}, rowA[key(it.Kind, it.Name)]))
		}
	}
	for _, k := range []Kind{APIServerPlugin, KubeletHandlerKind} {
		before, after := commonOrder(a, b, k), commonOrder(b, a, k)
		posB := map[string]int{}
		for i, n := range after {
			posB[n] = i
		}
		kept := longestCommonSubsequence(before, after)
		for i, n := range before {
			if kept[n] {
				continue
			}
			out = append(out, decided(Change{Change: OrderChanged, Kind: k, Name: n,
				From: neighbours(before, i), To: neighbours(after, posB[n])}, rowB[key(k, n)]))
		}
	}
	rank := map[ChangeKind]int{}
	for i, c := range ChangeKinds {
		rank[c] = i
	}
	kindRank := map[Kind]int{}
	for i, k := range Kinds {
		kindRank[k] = i
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Change != out[j].Change {
			return rank[out[i].Change] < rank[out[j].Change]
		}
		if out[i].Kind != out[j].Kind {
			return kindRank[out[i].Kind] < kindRank[out[j].Kind]
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// commonOrder is x's items of kind k that y has too and that have a
// place, in x's order.
func commonOrder(x, y Inventory, k Kind) []string {
	inY := map[string]bool{}
	for _, it := range y.Items {
		if it.Kind == k && it.Place > 0 {
			inY[it.Name] = true
		}
	}
	var items []Item
	for _, it := range x.Items {
		if it.Kind == k && it.Place > 0 && inY[it.Name] {
			items = append(items, it)
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Place < items[j].Place })
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Name
	}
	return out
}

func neighbours(order []string, i int) string {
	prev, next := "(first)", "(last)"
	if i > 0 {
		prev = order[i-1]
	}
	if i+1 < len(order) {
		next = order[i+1]
	}
	return "after " + prev + ", before " + next
}

// longestCommonSubsequence names the items of a longest common subsequence
// of x and y (each name once in each): the items that kept their order; the
// others moved.
func longestCommonSubsequence(x, y []string) map[string]bool {
	n, m := len(x), len(y)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	kept := map[string]bool{}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case x[i] == y[j]:
			kept[x[i]] = true
			i, j = i+1, j+1
		case l[i+1][j] >= l[i][j+1]:
			i++
		default:
			j++
		}
	}
	return kept
}

// WriteDecisions prints what the release table says must be decided for
// inv (the linked version, after a move): its summary, every unknown and
// stale item, and the changes from the newest kept inventory of an older
// version with the table's decision for each. It returns how many items
// are undecided (unknown or stale).
func WriteDecisions(w io.Writer, inv Inventory) (int, error) {
	r := Build(inv, Table)
	fmt.Fprintf(w, "Release table for Kubernetes %s%s: %s\n", inv.Kubernetes, r.preReleaseNote(), r.Summary)
	undecided := 0
	for _, row := range r.Rows {
		if row.Disposition == Unknown {
			undecided++
			fmt.Fprintf(w, "  to decide: %s %s (%s)\n", row.Kind, row.Name, row.Why)
		}
	}
	for _, e := range r.Stale {
		undecided++
		fmt.Fprintf(w, "  stale: the table decides %s %s, which Kubernetes %s does not have: bound the entry with Until: %q\n", e.Kind, e.Name, inv.Kubernetes, Minor(inv.Kubernetes))
	}
	versions, err := StoredVersions()
	if err != nil {
		return undecided, err
	}
	prev := ""
	for _, v := range versions {
		if versionLess(v, inv.Kubernetes) {
			prev = v
		}
	}
	if prev != "" {
		all, err := Stored()
		if err != nil {
			return undecided, err
		}
		r.ChangesFrom, r.Changes = prev, Diff(all[prev], inv, Table)
		bw := bufio.NewWriter(w)
		r.writeChangesText(bw)
		if err := bw.Flush(); err != nil {
			return undecided, err
		}
	}
	if undecided > 0 {
		fmt.Fprintf(w, "%d item(s) to decide: add or bound their entries in internal/contract/release/table.go (Since/Until %q), then make contract-docs\n", undecided, Minor(inv.Kubernetes))
	} else {
		fmt.Fprintln(w, "every item decided; make contract-docs regenerates docs/contract.md")
	}
	return undecided, nil
}

// placeIn says between which items of its kind it sits in inv's order.
func placeIn(inv Inventory, it Item) string {
	var items []Item
	for _, x := range inv.Items {
		if x.Kind == it.Kind && x.Place > 0 {
			items = append(items, x)
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Place < items[j].Place })
	names := make([]string, len(items))
	at := 0
	for i, x := range items {
		names[i] = x.Name
		if x.Name == it.Name {
			at = i
		}
	}
	return neighbours(names, at)
}
