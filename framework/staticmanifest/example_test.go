package staticmanifest_test

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
)

// A static manifest is a YAML file of admission configurations; Write puts
// it into every replica's watched directory (cluster.StaticManifests).
func ExampleEncode() {
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "acme" + staticmanifest.Suffix}}
	data, err := staticmanifest.Encode(cfg)
	if err != nil {
		panic(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "kind:") || strings.HasPrefix(l, "apiVersion:") || strings.HasPrefix(l, "  name:") {
			fmt.Println(l)
		}
	}
	// Output:
	// apiVersion: admissionregistration.k8s.io/v1
	// kind: ValidatingWebhookConfiguration
	//   name: acme.static.k8s.io
}
