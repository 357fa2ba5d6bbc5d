package enforce_test

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
)

// A change is enforced when a marker request gets the enforced answer: here
// a probe that says so from its third request on (a real probe sends a
// dry-run request through the replica it is given, as
// harness.Framework.MarkerProbe does).
func ExampleOnEveryReplica() {
	sent := map[*rest.Config]int{}
	probe := func(_ context.Context, c *rest.Config) (bool, error) {
		sent[c]++
		return sent[c] >= 3, nil
	}
	replicas := []*rest.Config{{Host: "https://a"}, {Host: "https://b"}}
	latencies, err := enforce.OnEveryReplica(context.Background(), time.Now(), replicas, 5*time.Second, time.Millisecond, probe)
	fmt.Println(len(latencies), err, sent[replicas[0]], sent[replicas[1]])
	// Output: 2 <nil> 3 3
}
