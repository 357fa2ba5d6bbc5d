package audit_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/admission-conformance/admission-conformance/framework/audit"
)

// A spec reads the annotations admission left on one request from every
// replica's audit log (cluster.AuditLog's AuditLogPaths, polled until the
// event lands). Here one replica's log holds the create of the spec's
// ConfigMap, a create of another one, and a line the apiserver is still
// writing; a second replica has written no log yet.
func ExampleEvents() {
	dir, err := os.MkdirTemp("", "audit")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	log := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"create","objectRef":{"resource":"configmaps","namespace":"acme-1","name":"subject"},"annotations":{"failed-open.validating.webhook.admission.k8s.io/round_0_index_0":"acme.example.com"}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"create","objectRef":{"resource":"configmaps","namespace":"acme-1","name":"other"},"annotations":{}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"Respon`
	if err := os.WriteFile(filepath.Join(dir, "replica-0.log"), []byte(log), 0o600); err != nil {
		panic(err)
	}
	paths := []string{filepath.Join(dir, "replica-0.log"), filepath.Join(dir, "replica-1.log")}

	events, err := audit.Events(paths, audit.ForObject("create", "configmaps", "acme-1", "subject"))
	fmt.Println(len(events), err)
	for k, v := range events[0].Annotations {
		fmt.Println(k, "=", v)
	}
	// Output:
	// 1 <nil>
	// failed-open.validating.webhook.admission.k8s.io/round_0_index_0 = acme.example.com
}
