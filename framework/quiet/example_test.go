package quiet_test

import (
	"context"
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/quiet"
)

// A spec that measures how fast a webhook configuration is enforced
// declares spec.Isolation{Quiet: []quiet.Kind{quiet.WebhookConfigurations}};
// the harness then holds the kind's window for each of its cases, as here.
func Example() {
	g := quiet.Local()
	release, err := g.Hold(context.Background(), quiet.WebhookConfigurations)
	if err != nil {
		panic(err)
	}
	fmt.Println(quiet.WebhookConfigurations.Validate(), release() == nil)
	// Output: <nil> true
}
