package embedded

import "testing"

func TestSupportCoversEveryFeature(t *testing.T) {
	if err := Support().Check(Name); err != nil {
		t.Error(err)
	}
}
