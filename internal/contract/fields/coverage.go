package fields

import "github.com/admission-conformance/admission-conformance/framework/results"

// How a run exercised a field.
const (
	HowSet      = "set"
	HowChanged  = "changed"
	HowReceived = "received"
	HowAnswered = "answered"
	HowUsed     = "used"
)

// FieldCoverage is one path of the inventory in a run, and Coverage the
// field coverage of one run: results.json carries them (results.Coverage).
type (
	FieldCoverage = results.FieldCoverage
	Coverage      = results.Coverage
)

// Cover computes a run's coverage from each case's use, keyed by the case's
// spec ShortName.
func Cover(uses map[string][]Use) Coverage {
	specs := map[Path]map[string]bool{}
	how := map[Path]map[string]bool{}
	note := func(short, h string, paths []Path) {
		for _, p := range paths {
			if specs[p] == nil {
				specs[p], how[p] = map[string]bool{}, map[string]bool{}
			}
			specs[p][short], how[p][h] = true, true
		}
	}
	for short, list := range uses {
		for _, u := range list {
			note(short, HowSet, u.Set)
			note(short, HowChanged, u.Changed)
			note(short, HowReceived, u.Received)
			note(short, HowAnswered, u.Answered)
			note(short, HowUsed, u.CEL)
		}
	}
	var c Coverage
	for _, p := range Inventory() {
		d := Table[string(p)]
		fc := FieldCoverage{Path: p, Clauses: d.Clauses, Gap: d.Gap, OutOfScope: d.OutOfScope,
			Specs: sortedKeys(specs[p]), How: sortedKeys(how[p])}
		c.Fields = append(c.Fields, fc)
		if d.OutOfScope != "" {
			continue
		}
		c.InScope++
		cel := p.Root() == CELRoot
		if cel {
			c.CELInScope++
		}
		if len(fc.Specs) > 0 {
			c.Exercised++
			if cel {
				c.CELExercised++
			}
		}
		if how[p][HowChanged] {
			c.ChangedLive++
		}
	}
	if c.InScope > 0 {
		c.Percent = float64(c.Exercised) * 100 / float64(c.InScope)
	}
	return c
}
