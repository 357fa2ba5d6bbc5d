package access

import (
	"slices"
	"sort"
)

// Lacking sorts the rights of needed that were denied (as Check names
// them) by who needs them: those every run needs (Specs empty), which no
// run can do without, and, per spec, those only that spec needs, without
// which its cases are not supported but the rest of the run is sound.
func Lacking(needed []Access, denied []string) (everyRun []string, bySpec map[string][]string) {
	bySpec = map[string][]string{}
	for _, a := range needed {
		s := a.String()
		if !slices.Contains(denied, s) {
			continue
		}
		if len(a.Specs) == 0 {
			if !slices.Contains(everyRun, s) {
				everyRun = append(everyRun, s)
			}
			continue
		}
		for _, name := range a.Specs {
			if !slices.Contains(bySpec[name], s) {
				bySpec[name] = append(bySpec[name], s)
			}
		}
	}
	return everyRun, bySpec
}

// SpecNames are bySpec's keys, sorted: the order reports list them in.
func SpecNames(bySpec map[string][]string) []string {
	names := make([]string, 0, len(bySpec))
	for n := range bySpec {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// OfSpec is the rights of needed that name spec short among those needing
// them: what a case of that spec needs beyond every run's rights.
func OfSpec(needed []Access, short string) []Access {
	var out []Access
	for _, a := range needed {
		if slices.Contains(a.Specs, short) {
			out = append(out, a)
		}
	}
	return out
}
