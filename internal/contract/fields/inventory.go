// Package fields is the field inventory of the admission API: every field
// path of the admissionregistration.k8s.io/v1 configuration kinds and of
// admission.k8s.io/v1 AdmissionRequest and AdmissionResponse, enumerated by
// reflection from the pinned k8s.io/api, and every variable and library of
// the admission CEL environment (internal/contract/celenv), each decided in the table
// (table.go): the contract clauses that cover it, or why none needs to.
// TestEveryFieldIsDecided fails when the pinned types or environment have a
// path the table does not know, so a field, variable or library the next
// release adds fails the build until it is decided.
package fields

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/celenv"
	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
)

// Roots are the types the inventory walks, by the name a path starts with.
var Roots = []Root{
	{"MutatingWebhookConfiguration", reflect.TypeOf(admissionregistrationv1.MutatingWebhookConfiguration{})},
	{"ValidatingWebhookConfiguration", reflect.TypeOf(admissionregistrationv1.ValidatingWebhookConfiguration{})},
	{"ValidatingAdmissionPolicy", reflect.TypeOf(admissionregistrationv1.ValidatingAdmissionPolicy{})},
	{"ValidatingAdmissionPolicyBinding", reflect.TypeOf(admissionregistrationv1.ValidatingAdmissionPolicyBinding{})},
	{"MutatingAdmissionPolicy", mutatingPolicyType},
	{"MutatingAdmissionPolicyBinding", mutatingBindingType},
	{"AdmissionRequest", reflect.TypeOf(admissionv1.AdmissionRequest{})},
	{"AdmissionResponse", reflect.TypeOf(admissionv1.AdmissionResponse{})},
}

// The MutatingAdmissionPolicy types depend on the pinned minor: k8s.io/api
// has admissionregistration.k8s.io/v1 ones from 0.36 (kubecompat).
var mutatingPolicyType, mutatingBindingType = kubecompat.MutatingAdmissionPolicyTypes()

// Root is one type the inventory walks.
type Root struct {
	Name string
	Type reflect.Type
}

// Leaf types are not walked into: their meaning is the whole value's.
// ObjectMeta is generic object metadata (one path, "metadata"); a Condition
// is what a controller reports as a unit; RawExtension is an embedded
// object; Time and Quantity are scalars in JSON.
var leafTypes = map[reflect.Type]bool{
	reflect.TypeOf(metav1.ObjectMeta{}):    true,
	reflect.TypeOf(metav1.Condition{}):     true,
	reflect.TypeOf(metav1.Time{}):          true,
	reflect.TypeOf(runtime.RawExtension{}): true,
	reflect.TypeOf(resource.Quantity{}):    true,
}

// skippedTypes carry no admission meaning: apiVersion and kind of the
// object itself.
var skippedTypes = map[reflect.Type]bool{
	reflect.TypeOf(metav1.TypeMeta{}): true,
}

// Path is one field path: the root's name, then JSON field names joined by
// dots, "[]" after a list of objects, e.g.
// "MutatingWebhookConfiguration.webhooks[].rules[].operations". results.json
// names paths, so the type is the public results.FieldPath.
type Path = results.FieldPath

// Inventory returns every field path of every root, then every entry of
// the admission CEL environment under CELRoot, sorted.
func Inventory() []Path { return slices.Clone(pinnedInventory()) }

// CELRoot is the root of the CEL environment's entries
// (internal/contract/celenv): "CEL.variables.<context>.<name>" for each
// variable an expression can read where it is written,
// "CEL.libraries.<name>" for each library of functions and macros.
const CELRoot = "CEL"

// CELPath is the path of a celenv entry.
func CELPath(entry string) Path { return Path(CELRoot + "." + entry) }

// pinnedInventory walks the types and reads the CEL environment once:
// they do not change while the binary runs. A CEL environment that cannot
// be read adds nothing; celenv's own test names why.
var pinnedInventory = sync.OnceValue(func() []Path {
	var out []Path
	for _, r := range Roots {
		walk(r.Name, r.Type, map[reflect.Type]bool{}, &out)
	}
	if inv, err := celenv.Pinned(); err == nil {
		for _, e := range inv.Entries() {
			out = append(out, CELPath(e))
		}
	}
	slices.Sort(out)
	return out
})

func walk(prefix string, t reflect.Type, seen map[reflect.Type]bool, out *[]Path) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || leafTypes[t] {
		*out = append(*out, Path(prefix))
		return
	}
	if seen[t] {
		panic(fmt.Sprintf("fields: %s is recursive at %s; make it a leaf type", t, prefix))
	}
	seen[t] = true
	defer delete(seen, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || skippedTypes[f.Type] {
			continue
		}
		name, inline := jsonName(f)
		if name == "-" {
			continue
		}
		if inline {
			walk(prefix, f.Type, seen, out)
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		path := prefix + "." + name
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 {
			elem := ft.Elem()
			for elem.Kind() == reflect.Pointer {
				elem = elem.Elem()
			}
			if elem.Kind() == reflect.Struct && !leafTypes[elem] {
				walk(path+"[]", elem, seen, out)
				continue
			}
		}
		walk(path, ft, seen, out)
	}
}

func jsonName(f reflect.StructField) (name string, inline bool) {
	tag := f.Tag.Get("json")
	parts := strings.Split(tag, ",")
	for _, p := range parts[1:] {
		if p == "inline" {
			return "", true
		}
	}
	if parts[0] == "" {
		if f.Anonymous {
			return "", true
		}
		return f.Name, false
	}
	return parts[0], false
}
