package ordering

import (
	"sigs.k8s.io/e2e-framework/klient/decoder"
	"sigs.k8s.io/e2e-framework/klient/k8s"

	"github.com/admission-conformance/admission-conformance/fixtures"
	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// subjectLabel marks the objects a spec sends through admission, as the
// fixtures do.
const subjectLabel = "admission-conformance.io/subject"

// fixture decodes the manifest at path into obj, in the spec's namespace and
// annotated with nonce (when not empty) as one request's object.
func fixture(f *harness.Framework, path string, obj k8s.Object, nonce string) error {
	if err := fixtures.Decode(path, obj, decoder.MutateNamespace(f.Namespace)); err != nil {
		return err
	}
	if nonce != "" {
		annotations := obj.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[requestAnnotation] = nonce
		obj.SetAnnotations(annotations)
	}
	return nil
}

// escape turns a map key into a JSON pointer segment (RFC 6901).
func escape(key string) string {
	out := make([]byte, 0, len(key))
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, key[i])
		}
	}
	return string(out)
}
