package bounds_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
)

// Every wait and bound comes from one Bounds, with defaults; the user
// overrides one by name (run --bound, the options file).
func Example() {
	b := bounds.Defaults()
	if err := b.Set("webhookReady=5s"); err != nil {
		panic(err)
	}
	fmt.Println(b.WebhookReady.Duration, b.Validate() == nil)
	fmt.Println(b.Set("noSuchBound=1s") != nil)
	// Output:
	// 5s true
	// true
}
