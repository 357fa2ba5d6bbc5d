package incluster

import (
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
)

func TestBoundArgsOnlyChanged(t *testing.T) {
	b := bounds.Defaults()
	if a := boundArgs(b); len(a) != 0 {
		t.Errorf("defaults: %v", a)
	}
	b.TimingSlack = bounds.D(time.Second)
	b.Spec = bounds.D(5 * time.Minute)
	if a := strings.Join(boundArgs(b), " "); a != "--bound spec=5m0s --bound timingSlack=1s" && a != "--bound timingSlack=1s --bound spec=5m0s" {
		t.Errorf("changed: %s", a)
	}
}
