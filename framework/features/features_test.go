package features

import "testing"

func TestByVersionDeclaresFeaturesFromTheirRelease(t *testing.T) {
	for _, tc := range []struct {
		major, minor int
		want         bool
	}{{1, 35, false}, {1, 36, false}, {1, 37, true}, {1, 38, true}, {2, 0, true}} {
		got := ByVersion(tc.major, tc.minor)
		if got.Has(WebhookVirtualResourcesExcluded) != tc.want {
			t.Errorf("%d.%d: WebhookVirtualResourcesExcluded declared %t, want %t", tc.major, tc.minor, !tc.want, tc.want)
		}
		if got.Has(StaticAdmissionManifests) {
			t.Errorf("%d.%d: a feature the provider sets up is declared by version alone", tc.major, tc.minor)
		}
	}
}

func TestSinceIsWellFormed(t *testing.T) {
	for _, f := range All() {
		if f.Since != "" && !AtLeast(99, 0, f.Since) {
			t.Errorf("feature %s: Since %q is not MAJOR.MINOR", f.Name, f.Since)
		}
		if f.Core && f.Since != "" {
			t.Errorf("feature %s: a core feature cannot depend on the release", f.Name)
		}
	}
}
