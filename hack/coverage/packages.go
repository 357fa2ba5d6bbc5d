package coverage

import "strings"

// Packages are the implementation's admission code a coverage build
// instruments (go build -coverpkg): everything under k8s.io/apiserver's
// pkg/admission (the chain, the webhook and policy plugins, matchConditions,
// CEL admission, the manifest loaders, metrics), the validation of the
// admission configuration API, the kube-apiserver admission plugins that act
// on pods, and the kubelet's pod admit handlers (the packages of the chain
// NewMainKubelet builds: internal/contract/release lists it). Packages a
// binary does not link are left out by the go command; the rest appear in
// the profile even when nothing ran them.
var Packages = []string{
	"k8s.io/apiserver/pkg/admission/...",
	"k8s.io/kubernetes/pkg/apis/admissionregistration/validation",
	"k8s.io/kubernetes/plugin/pkg/admission/alwayspullimages",
	"k8s.io/kubernetes/plugin/pkg/admission/antiaffinity",
	"k8s.io/kubernetes/plugin/pkg/admission/defaulttolerationseconds",
	"k8s.io/kubernetes/plugin/pkg/admission/extendedresourcetoleration",
	"k8s.io/kubernetes/plugin/pkg/admission/imagepolicy",
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger",
	"k8s.io/kubernetes/plugin/pkg/admission/nodedeclaredfeatures",
	"k8s.io/kubernetes/plugin/pkg/admission/noderestriction",
	"k8s.io/kubernetes/plugin/pkg/admission/podnodeselector",
	"k8s.io/kubernetes/plugin/pkg/admission/podresize",
	"k8s.io/kubernetes/plugin/pkg/admission/podtolerationrestriction",
	"k8s.io/kubernetes/plugin/pkg/admission/podtopologylabels",
	"k8s.io/kubernetes/plugin/pkg/admission/priority",
	"k8s.io/kubernetes/plugin/pkg/admission/runtimeclass",
	"k8s.io/kubernetes/plugin/pkg/admission/security/podsecurity",
	"k8s.io/kubernetes/plugin/pkg/admission/serviceaccount",
	"k8s.io/kubernetes/pkg/kubelet/lifecycle",
	"k8s.io/kubernetes/pkg/kubelet/sysctl",
	"k8s.io/kubernetes/pkg/kubelet/allocation",
	"k8s.io/kubernetes/pkg/kubelet/eviction",
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown",
}

// mainPackage is instrumented too: the go command writes no coverage data
// at all for a binary whose main package -coverpkg leaves out (seen with
// go1.26.8). Its blocks are dropped from every profile (Measured).
const mainPackage = "github.com/admission-conformance/admission-conformance/cmd/run-conformance"

// CoverPkg is the -coverpkg flag's value.
func CoverPkg() string {
	return strings.Join(append(append([]string(nil), Packages...), mainPackage), ",")
}

// Measured reports whether a package is one of Packages.
func Measured(pkg string) bool { return anyMatch(Packages, pkg, true) }

// Modules are the modules Packages live in, whose versions a snapshot
// records.
var Modules = []string{"k8s.io/apiserver", "k8s.io/kubernetes"}

// NodeSide reports whether a package runs in the kubelet (a hollow node's
// process) rather than in the apiserver: a serial run's per-case counters
// come from the cluster's own process, so node-side code is attributed to
// every spec that needs a node instead.
func NodeSide(pkg string) bool {
	return strings.HasPrefix(pkg, "k8s.io/kubernetes/pkg/kubelet/")
}
