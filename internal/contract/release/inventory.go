package release

import (
	"fmt"
	"sort"
	"strings"

	utilfeature "k8s.io/apiserver/pkg/util/feature"

	// Registers every Kubernetes and generic apiserver gate into
	// utilfeature.DefaultMutableFeatureGate.
	_ "k8s.io/kubernetes/pkg/features"
	kubeoptions "k8s.io/kubernetes/pkg/kubeapiserver/options"
)

// PinnedGates returns the name of every feature gate the pinned Kubernetes
// registers and has at its own version (GetAll leaves out gates not yet
// introduced at the emulation version), sorted.
func PinnedGates() []string {
	all := utilfeature.DefaultMutableFeatureGate.GetAll()
	out := make([]string, 0, len(all))
	for g := range all {
		out = append(out, string(g))
	}
	sort.Strings(out)
	return out
}

// gateState is a gate's default, stage and lock at the pinned version, for
// the table's display ("beta, on").
func gateState(name string) string {
	for g, s := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		if string(g) != name {
			continue
		}
		stage := strings.ToLower(string(s.PreRelease))
		if stage == "" {
			stage = "GA"
		}
		on := "off"
		if s.Default {
			on = "on"
		}
		if s.LockToDefault {
			on += ", locked"
		}
		return stage + ", " + on
	}
	return "unknown"
}

// PinnedPlugins lists kube-apiserver's admission plugins as
// kubeoptions.NewAdmissionOptions sets them up: the registry
// (RegisterAllAdmissionPlugins on top of the generic ones) and the
// recommended order (AllOrderedPlugins), both, each with its place in the
// order and whether it is on by default.
func PinnedPlugins() []Item {
	opts := kubeoptions.NewAdmissionOptions().GenericAdmission
	registered := map[string]bool{}
	for _, p := range opts.Plugins.Registered() {
		registered[p] = true
	}
	place := map[string]int{}
	for i, p := range opts.RecommendedPluginOrder {
		place[p] = i + 1
	}
	names := map[string]bool{}
	for p := range registered {
		names[p] = true
	}
	for p := range place {
		names[p] = true
	}
	out := make([]Item, 0, len(names))
	for p := range names {
		var why []string
		state := "on by default"
		if opts.DefaultOffPlugins.Has(p) {
			state = "off by default"
		}
		if !registered[p] {
			state += ", not registered"
		}
		if n, ok := place[p]; ok {
			why = append(why, fmt.Sprintf("%d of %d in AllOrderedPlugins", n, len(opts.RecommendedPluginOrder)))
		} else {
			why = append(why, "not in AllOrderedPlugins")
		}
		if !registered[p] {
			why = append(why, "not registered")
		}
		if opts.DefaultOffPlugins.Has(p) {
			why = append(why, "off by default")
		} else {
			why = append(why, "on by default")
		}
		out = append(out, Item{Kind: APIServerPlugin, Name: p, Why: strings.Join(why, ", "), State: state, Place: place[p]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PinnedHandlers lists the kubelet's pod admit chain as derived from the
// pinned sources (zz_generated_pinned.go), in chain order.
func PinnedHandlers() []Item { return handlerItems(pinned) }

func handlerItems(d Derived) []Item {
	out := make([]Item, 0, len(d.KubeletHandlers))
	for i, h := range d.KubeletHandlers {
		why := fmt.Sprintf("%d of %d in the chain", i+1, len(d.KubeletHandlers))
		if h.Guard != "" {
			why += ", only if " + h.Guard
		}
		state := "always"
		if h.Guard != "" {
			state = "only if " + h.Guard
		}
		out = append(out, Item{Kind: KubeletHandlerKind, Name: h.Constructor, Why: why, State: state, Place: i + 1})
	}
	return out
}

// Pinned is the inventory of the pinned Kubernetes: the admission-related
// gates (SelectGates over every registered gate, with the generated
// references and ReviewedGates), the kube-apiserver plugins and the kubelet
// handlers.
func Pinned() (Inventory, error) { return InventoryFrom(pinned) }

// InventoryFrom is the inventory of the linked Kubernetes with what d
// derived from its sources (hack/release-inventory passes what it has just
// derived, which the compiled-in zz_generated_pinned.go may not yet be).
func InventoryFrom(d Derived) (Inventory, error) {
	gates, err := SelectGates(PinnedGates(), d.GateReferences, ReviewedGatesAt(d.Kubernetes))
	if err != nil {
		return Inventory{}, err
	}
	for i := range gates {
		gates[i].State = gateState(gates[i].Name)
		gates[i].Why = gates[i].State + "; " + gates[i].Why
	}
	items := append(gates, PinnedPlugins()...)
	items = append(items, handlerItems(d)...)
	return Inventory{Kubernetes: d.Kubernetes, Items: items}, nil
}

// PinnedReport is the release table of the pinned Kubernetes.
func PinnedReport() (Report, error) {
	inv, err := Pinned()
	if err != nil {
		return Report{}, err
	}
	return Build(inv, Table), nil
}

// PinnedVersion is the k8s.io/kubernetes version the harness is built with.
func PinnedVersion() string { return pinned.Kubernetes }
