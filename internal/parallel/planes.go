package parallel

import (
	"slices"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// AssignPlanes puts the units whose spec onPlane accepts (specs holding
// quiet windows) on the run's planes propagation planes (Unit.Plane, from
// 1), longest first, each where the chain of its kinds ends soonest: on
// one plane the holders of a kind run back to back, those of different
// kinds side by side, so a plane takes as long as its longest chain of one
// kind. Ties go to the plane with the shorter longest chain, then the
// first. The other units stay on the cluster (Plane 0).
func AssignPlanes(units []Unit, onPlane func(spec.Spec) bool, planes int) {
	if planes < 1 {
		return
	}
	chain := make([]map[quiet.Kind]time.Duration, planes+1) // by plane, from 1
	for p := 1; p <= planes; p++ {
		chain[p] = map[quiet.Kind]time.Duration{}
	}
	length := func(p int) time.Duration {
		var l time.Duration
		for _, d := range chain[p] {
			l = max(l, d)
		}
		return l
	}
	var order []int
	for i, u := range units {
		if onPlane(u.Spec) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(units[b].Estimate - units[a].Estimate) })
	for _, i := range order {
		u := &units[i]
		ends := func(p int) time.Duration {
			var e time.Duration
			for _, k := range u.Spec.Isolation.Quiet {
				e = max(e, chain[p][k]+u.Estimate)
			}
			return e
		}
		best := 1
		for p := 2; p <= planes; p++ {
			if e, b := ends(p), ends(best); e < b || e == b && length(p) < length(best) {
				best = p
			}
		}
		u.Plane = best
		end := ends(best) // it starts once all its kinds are free
		for _, k := range u.Spec.Isolation.Quiet {
			chain[best][k] = end
		}
	}
}
