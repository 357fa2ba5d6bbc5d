package fields

// How a run exercised a field.
const (
	HowSet      = "set"
	HowChanged  = "changed"
	HowReceived = "received"
	HowAnswered = "answered"
	HowUsed     = "used"
)

// FieldCoverage is one path of the inventory in a run: its decision and
// the cases that exercised it.
type FieldCoverage struct {
	Path       Path     `json:"path"`
	Clauses    []string `json:"clauses,omitempty"`
	Gap        string   `json:"gap,omitempty"`
	OutOfScope string   `json:"outOfScope,omitempty"`
	// Specs are the ShortNames of the specs whose cases exercised it.
	Specs []string `json:"specs,omitempty"`
	// How says how: set in a configuration written, changed on a live one,
	// received by a fake webhook, answered by one, used (a CEL entry) by an
	// accepted expression.
	How []string `json:"how,omitempty"`
}

// Coverage is the field coverage of one run.
type Coverage struct {
	// InScope counts the inventory's paths not out of scope; Exercised
	// those of them some case exercised, ChangedLive those some case
	// changed on a live object. Percent is Exercised over InScope.
	InScope     int     `json:"inScope"`
	Exercised   int     `json:"exercised"`
	ChangedLive int     `json:"changedLive"`
	Percent     float64 `json:"percent"`
	// CELInScope and CELExercised count the CEL environment's entries
	// (included in InScope and Exercised) on their own.
	CELInScope   int             `json:"celInScope"`
	CELExercised int             `json:"celExercised"`
	Fields       []FieldCoverage `json:"fields"`
}

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

// Unexercised returns the in-scope paths no case exercised.
func (c Coverage) Unexercised() []FieldCoverage {
	var out []FieldCoverage
	for _, f := range c.Fields {
		if f.OutOfScope == "" && len(f.Specs) == 0 {
			out = append(out, f)
		}
	}
	return out
}
