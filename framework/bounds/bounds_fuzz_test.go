package bounds

import (
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// FuzzSet: one --bound name=duration, as run applies it over the defaults
// (and over an options file's bounds) before it validates them. A bound
// that is set renders, and reads back, the same.
func FuzzSet(f *testing.F) {
	for _, seed := range []string{
		"webhookReady=5s", "webhookConfigPropagation=2500ms", "nonsense", "noSuchBound=1s", "timingSlack=fast",
		"clusterStart=-1s", "spec=0", "timingSlack=1h2m3.5s", "pollInterval=1ns", "harnessStarved=9223372036854775807ns",
		"=1s", "webhookReady=", "webhookReady=1s=2s", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, assignment string) {
		b := Defaults()
		err := b.Set(assignment)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("Set(%q) error is not one line: %q", assignment, err)
			}
			if b != Defaults() {
				t.Fatalf("Set(%q) failed but changed the bounds", assignment)
			}
			return
		}
		key, value, _ := strings.Cut(assignment, "=")
		d, perr := time.ParseDuration(value)
		if perr != nil || !slices.Contains(Keys(), key) {
			t.Fatalf("Set(%q) accepted", assignment)
		}
		verr := b.Validate()
		if (verr == nil) != (d > 0) {
			t.Fatalf("Set(%q): Validate says %v", assignment, verr)
		}
		if verr != nil && strings.Contains(verr.Error(), "\n") {
			t.Fatalf("Validate error after Set(%q) is not one line: %q", assignment, verr)
		}
		// As an options file holds it, and as a flag again.
		data, err := yaml.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		var back Bounds
		if err := yaml.UnmarshalStrict(data, &back); err != nil || back != b {
			t.Fatalf("Set(%q): the bounds do not read back (%v):\n%s", assignment, err, data)
		}
		again := Defaults()
		if err := again.Set(key + "=" + d.String()); err != nil || again != b {
			t.Fatalf("Set(%q) then Set(%q): %v", assignment, key+"="+d.String(), err)
		}
	})
}
