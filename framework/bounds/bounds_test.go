package bounds

import (
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

func TestSetOverridesOneBound(t *testing.T) {
	b := Defaults()
	if err := b.Set("webhookConfigPropagation=2500ms"); err != nil {
		t.Fatal(err)
	}
	if b.WebhookConfigPropagation.Duration != 2500*time.Millisecond {
		t.Fatalf("got %s", b.WebhookConfigPropagation)
	}
	if b.PolicyPropagation != Defaults().PolicyPropagation {
		t.Fatalf("another bound changed: %s", b.PolicyPropagation)
	}
}

func TestSetRejectsBadInput(t *testing.T) {
	for _, in := range []string{"nonsense", "noSuchBound=1s", "timingSlack=fast"} {
		b := Defaults()
		err := b.Set(in)
		if err == nil {
			t.Errorf("Set(%q) accepted", in)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Set(%q) error is not one line: %q", in, err)
		}
	}
}

func TestYAMLRoundTripAndValidation(t *testing.T) {
	var b Bounds = Defaults()
	if err := yaml.UnmarshalStrict([]byte("timingSlack: 750ms\n"), &b); err != nil {
		t.Fatal(err)
	}
	if b.TimingSlack.Duration != 750*time.Millisecond || b.ClusterStart != Defaults().ClusterStart {
		t.Fatalf("partial override went wrong: %+v", b)
	}
	out, err := yaml.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var back Bounds
	if err := yaml.UnmarshalStrict(out, &back); err != nil || back != b {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	if err := yaml.UnmarshalStrict([]byte("timingSlack: 3\n"), &b); err == nil {
		t.Fatal("a bare number was accepted as a duration")
	}
	b.Spec = D(0)
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "spec") {
		t.Fatalf("zero bound accepted or not named: %v", err)
	}
}

func TestHarnessStarvedIsABoundLikeTheOthers(t *testing.T) {
	b := Defaults()
	if b.HarnessStarved.Duration != 100*time.Millisecond {
		t.Fatalf("default %s, want 100ms", b.HarnessStarved)
	}
	if err := b.Set("harnessStarved=250ms"); err != nil || b.HarnessStarved.Duration != 250*time.Millisecond {
		t.Fatalf("--bound harnessStarved=250ms: %v, %s", err, b.HarnessStarved)
	}
	b.HarnessStarved = D(0)
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "harnessStarved") {
		t.Fatalf("zero harnessStarved accepted or not named: %v", err)
	}
}
