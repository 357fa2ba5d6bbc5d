package decision

import "testing"

func TestValidateAndCounts(t *testing.T) {
	var c Counts
	for _, tc := range []struct {
		d       Decision
		decided bool
		valid   bool
	}{
		{Of("a"), true, true},
		{Of("a").WithGap("part"), true, true},
		{Decision{Gap: "all"}, true, true},
		{OutOfScope("why"), true, true},
		{Decision{}, false, false},
		{Decision{OutOfScope: "why", Clauses: []string{"a"}}, true, false},
	} {
		if err := tc.d.Validate(); (err == nil) != tc.valid {
			t.Errorf("Validate(%+v) = %v, want valid %v", tc.d, err, tc.valid)
		}
		c.Add(tc.d, tc.decided)
	}
	if want := (Counts{Mapped: 2, WithGap: 1, OnlyGap: 1, OutOfScope: 2, Unmapped: 1}); c != want {
		t.Errorf("Counts = %+v, want %+v", c, want)
	}
}
