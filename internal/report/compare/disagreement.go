package compare

import (
	"fmt"
	"math"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Disagreement says how the values of one measurement in n runs laid side
// by side (internal/report/matrix) disagree, or "" when they agree: when
// fewer than n runs have it, when their units or bounds differ, when it is
// within its bounds in one run and not in another, or when the largest
// value exceeds the smallest beyond the thresholds (as Compare would flag
// the smallest run against the largest). present are the values of the
// runs that have one.
func (th Thresholds) Disagreement(present []results.Measurement, n int) string {
	if len(present) < n {
		return fmt.Sprintf("measured in %d of %d runs", len(present), n)
	}
	if len(present) == 0 {
		return ""
	}
	first := present[0]
	lo, hi := first, first
	within, outside := 0, 0
	for _, p := range present {
		if p.Unit != first.Unit {
			return fmt.Sprintf("units differ (%s, %s): not comparable", first.Unit, p.Unit)
		}
		if !sameBound(p.Bound, first.Bound) || !sameBound(p.Lower, first.Lower) {
			return "bounds differ"
		}
		if p.Within() {
			within++
		} else {
			outside++
		}
		if p.Value < lo.Value {
			lo = p
		}
		if p.Value > hi.Value {
			hi = p
		}
	}
	if within > 0 && outside > 0 {
		return fmt.Sprintf("out of its bounds in %d of %d runs", outside, n)
	}
	delta := hi.Value - lo.Value
	rel := relative(delta, lo.Value)
	if (Diff{Thresholds: th}).beyond(delta, rel, hi) {
		if math.IsInf(rel, 0) {
			return "largest exceeds smallest (0) beyond the thresholds"
		}
		return fmt.Sprintf("largest exceeds smallest by %+.0f%%, beyond the thresholds", rel*100)
	}
	return ""
}

func sameBound(a, b *float64) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
